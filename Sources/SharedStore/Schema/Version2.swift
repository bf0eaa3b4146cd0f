extension SharedSchema {
    /// Version 2, rooms: the proctor's plan of a room (its test, roster and way of starting), the
    /// proctor's commands to seats, which session applied which command, and what each seat
    /// says of itself (attestation). Seats read their own room's plan and commands through
    /// functions that run as the owner and return nothing else; they still read no table.
    static let version2Rooms = """
        CREATE TABLE carrel_rooms (
          room text PRIMARY KEY CHECK (length(room) BETWEEN 1 AND 200),
          fingerprint text NOT NULL,
          assessment_id text NOT NULL,
          assessment_title text NOT NULL,
          items integer NOT NULL,
          time_limit_seconds integer,
          start_mode text NOT NULL CHECK (start_mode IN ('proctor', 'candidate')),
          carrel_version text NOT NULL,
          carrel_digest text NOT NULL,
          roster jsonb,
          commands_before bigint NOT NULL DEFAULT 0,
          opened_by text NOT NULL DEFAULT current_user,
          opened_at timestamptz NOT NULL DEFAULT now(),
          closed_at timestamptz
        );
        CREATE TABLE carrel_commands (
          id bigserial PRIMARY KEY,
          room text NOT NULL,
          seat text,
          action text NOT NULL CHECK (action IN ('start', 'pause', 'resume', 'time', 'message', 'end', 'acknowledge')),
          argument text CHECK (argument IS NULL OR octet_length(argument) <= 4000),
          issued_by text NOT NULL DEFAULT current_user,
          issued_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX carrel_commands_room ON carrel_commands (room, id);
        CREATE TABLE carrel_command_applied (
          command bigint NOT NULL,
          session text NOT NULL,
          at timestamptz NOT NULL DEFAULT now(),
          PRIMARY KEY (command, session)
        );
        ALTER TABLE carrel_sessions
          ADD COLUMN paused boolean NOT NULL DEFAULT false,
          ADD COLUMN added_seconds integer NOT NULL DEFAULT 0,
          ADD COLUMN hand text NOT NULL DEFAULT 'down',
          ADD COLUMN last_command bigint NOT NULL DEFAULT 0,
          ADD COLUMN attestation jsonb,
          ADD COLUMN passphrase_failures integer NOT NULL DEFAULT 0,
          ADD COLUMN candidate_number text;

        \(helloFunction("CREATE OR REPLACE", note: "As in version 1, with the candidate's roster number and what the seat says of itself.",
                         columns: helloRoomColumns, values: helloRoomValues))
        REVOKE ALL ON FUNCTION carrel_hello(text, jsonb) FROM PUBLIC;

        CREATE FUNCTION carrel_records_cap() RETURNS trigger
          LANGUAGE plpgsql SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
        BEGIN
          -- A record larger than any a seat writes is dropped, without an error (the seat's
          -- later records would otherwise wait behind it): the store does not grow by it.
          IF octet_length(NEW.body::text) > 4194304 OR octet_length(NEW.session) > 200 OR octet_length(NEW.kind) > 40 THEN
            RETURN NULL;
          END IF;
          RETURN NEW;
        END $$;
        CREATE TRIGGER carrel_records_cap BEFORE INSERT ON carrel_records
          FOR EACH ROW EXECUTE FUNCTION carrel_records_cap();

        \(roomRecordFunction("CREATE", commandEvents: roomRecordCommandsV2))
        CREATE TRIGGER carrel_records_room AFTER INSERT ON carrel_records
          FOR EACH ROW EXECUTE FUNCTION carrel_apply_room_record();

        CREATE FUNCTION carrel_commands_notify() RETURNS trigger
          LANGUAGE plpgsql SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
        BEGIN
          PERFORM pg_notify('carrel_commands', '');
          RETURN NULL;
        END $$;
        CREATE TRIGGER carrel_commands_notify AFTER INSERT ON carrel_commands
          FOR EACH STATEMENT EXECUTE FUNCTION carrel_commands_notify();

        CREATE FUNCTION carrel_room_plan(p_room text, p_seat text)
          RETURNS TABLE (fingerprint text, assessment_title text, items integer, time_limit_seconds integer,
                         start_mode text, carrel_digest text, has_roster boolean, last_command bigint, start_command bigint)
          LANGUAGE sql STABLE SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
          -- What a seat needs of its room's plan: never the roster, never another room.
          SELECT r.fingerprint, r.assessment_title, r.items, r.time_limit_seconds, r.start_mode, r.carrel_digest,
                 r.roster IS NOT NULL,
                 coalesce((SELECT max(c.id) FROM carrel_commands c WHERE c.room = r.room), 0),
                 (SELECT max(c.id) FROM carrel_commands c
                    WHERE c.room = r.room AND c.id > r.commands_before AND c.action = 'start'
                      AND (c.seat IS NULL OR c.seat = p_seat))
            FROM carrel_rooms r WHERE r.room = p_room AND r.closed_at IS NULL;
        $$;

        CREATE FUNCTION carrel_roster_candidate(p_room text, p_seat text, p_candidate text)
          RETURNS TABLE (candidate text, name text, seat text, extra_time text, screen_reader boolean, theme text,
                         language text, seated_at text)
          LANGUAGE sql STABLE SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
          -- One candidate, by the number typed at the seat: the roster is never listed.
          SELECT e->>'candidate', e->>'name', e->>'seat', e->>'extra_time',
                 CASE WHEN jsonb_typeof(e->'screen_reader') = 'boolean' THEN (e->>'screen_reader')::boolean END,
                 e->>'theme', e->>'language',
                 (SELECT s.seat FROM carrel_sessions s
                    WHERE s.room = p_room AND lower(coalesce(s.candidate_number, s.candidate)) = lower(e->>'candidate')
                      AND s.seat <> p_seat
                      AND s.status IN ('not_started', 'active', 'review', 'ending', 'interrupted')
                      AND s.last_seen > now() - interval '2 minutes'
                    ORDER BY s.last_seen DESC LIMIT 1)
            FROM carrel_rooms r, jsonb_array_elements(r.roster) e
            WHERE r.room = p_room AND r.closed_at IS NULL AND lower(e->>'candidate') = lower(p_candidate)
            LIMIT 1;
        $$;

        CREATE FUNCTION carrel_seat_commands(p_room text, p_seat text, p_after bigint)
          RETURNS TABLE (id bigint, action text, argument text)
          LANGUAGE sql STABLE SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
          -- This room's and this seat's commands after the last one the seat applied, in order.
          SELECT c.id, c.action, c.argument FROM carrel_commands c
            WHERE c.room = p_room AND (c.seat IS NULL OR c.seat = p_seat) AND c.id > p_after
            ORDER BY c.id LIMIT 200;
        $$;
        CREATE FUNCTION carrel_seat_refused(p_session text, p_body jsonb)
          RETURNS void LANGUAGE sql SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
          -- A seat that refused to begin (another test than its room's, or a candidate already
          -- seated elsewhere): shown to the proctor.
        \(seatRefusedRow)
        $$;
        REVOKE ALL ON FUNCTION carrel_seat_refused(text, jsonb) FROM PUBLIC;

        CREATE TABLE carrel_marks (
          id bigserial PRIMARY KEY,
          session text NOT NULL,
          item text NOT NULL CHECK (length(item) BETWEEN 1 AND 200),
          points double precision NOT NULL CHECK (points >= 0 AND points < 1000000000),
          comment text CHECK (comment IS NULL OR octet_length(comment) <= 4000),
          marked_by text NOT NULL DEFAULT current_user,
          at timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX carrel_marks_session ON carrel_marks (session, id);

        CREATE FUNCTION carrel_seat_marks(p_sessions text[], p_after bigint)
          RETURNS TABLE (id bigint, session text, item text, points double precision, comment text, at_epoch double precision)
          LANGUAGE sql STABLE SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
          -- The marks a proctor gave in the store to sessions the seat names (its own: session
          -- ids are random and no seat can list them), after the last one it took.
          SELECT m.id, m.session, m.item, m.points, m.comment, extract(epoch FROM m.at)::double precision
            FROM carrel_marks m WHERE m.session = ANY(p_sessions[1:1000]) AND m.id > p_after ORDER BY m.id LIMIT 500;
        $$;
        REVOKE ALL ON FUNCTION carrel_seat_marks(text[], bigint) FROM PUBLIC;
        REVOKE ALL ON FUNCTION carrel_room_plan(text, text) FROM PUBLIC;
        REVOKE ALL ON FUNCTION carrel_roster_candidate(text, text, text) FROM PUBLIC;
        REVOKE ALL ON FUNCTION carrel_seat_commands(text, text, bigint) FROM PUBLIC
        """

    /// The row `carrel_seat_refused` makes (version 2's, and version 5's within a quota).
    static let seatRefusedRow = """
          INSERT INTO carrel_sessions (session, room, seat, candidate, assessment_id, assessment_title, fingerprint,
              total, host, pid, status, started_at, lock_key, attestation)
            VALUES (left(p_session, 200), left(coalesce(p_body->>'room', ''), 200), left(coalesce(p_body->>'seat', ''), 200),
              left(p_body->>'candidate', 200), left(coalesce(p_body->>'assessment_id', ''), 200),
              left(coalesce(p_body->>'assessment_title', ''), 500), left(coalesce(p_body->>'fingerprint', ''), 200), 0,
              left(p_body->>'host', 200), carrel_number(p_body->'pid', 0, 2147483647)::integer,
              CASE WHEN p_body->>'refusal' = 'candidate_twice' THEN 'candidate_twice' ELSE 'wrong_test' END, now(),
              hashtextextended(p_session, 0),
              CASE WHEN jsonb_typeof(p_body->'attestation') = 'object' AND octet_length((p_body->'attestation')::text) <= 4000
                THEN p_body->'attestation' END)
            ON CONFLICT (session) DO NOTHING;
        """

    /// What version 2 adds to the row `carrel_hello` makes: the candidate's roster number and
    /// what the seat says of itself (an object of at most 4000 bytes, or nothing).
    static let helloRoomColumns = ", candidate_number, attestation"
    static let helloRoomValues = """
        , left(p_body->>'candidate_number', 64),
              CASE WHEN jsonb_typeof(p_body->'attestation') = 'object' AND octet_length((p_body->'attestation')::text) <= 4000
                THEN p_body->'attestation' END
        """

    /// `carrel_apply_room_record`: what a record changes of the room's view of its session
    /// (roster number, attestation, hand, passphrase failures, the commands it applied).
    /// Version 4 defines it again, changing only the events about commands: `commandEvents`
    /// are those lines, which end having set `detail` and `command` for a proctor_command.
    /// Stores have run both versions' text, so this one never changes.
    static func roomRecordFunction(_ create: String, commandEvents: String) -> String {
        """
        \(create) FUNCTION carrel_apply_room_record() RETURNS trigger
          LANGUAGE plpgsql SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
        DECLARE
          b jsonb := NEW.body;
          detail text;
          command bigint;
          action text;
        BEGIN
          BEGIN
            IF jsonb_typeof(b) <> 'object' THEN
              RETURN NULL;
            END IF;
            IF NEW.kind = 'session' THEN
              UPDATE carrel_sessions SET candidate_number = left(b->>'candidate_number', 64),
                  attestation = CASE WHEN jsonb_typeof(b->'attestation') = 'object' AND octet_length((b->'attestation')::text) <= 4000
                    THEN b->'attestation' ELSE attestation END
                WHERE session = NEW.session;
            ELSIF NEW.kind = 'event' AND b->>'kind' = 'hand_raised' THEN
              UPDATE carrel_sessions SET hand = 'raised' WHERE session = NEW.session;
            ELSIF NEW.kind = 'event' AND b->>'kind' = 'passphrase_failed' THEN
              UPDATE carrel_sessions SET passphrase_failures = passphrase_failures + 1 WHERE session = NEW.session;
        \(commandEvents)
              action := split_part(detail, ' ', 2);
              IF action IN ('start', 'pause', 'resume', 'time', 'message', 'end', 'acknowledge') THEN
                INSERT INTO carrel_command_applied (command, session) VALUES (command, NEW.session) ON CONFLICT DO NOTHING;
              END IF;
              UPDATE carrel_sessions SET
                  paused = CASE action WHEN 'pause' THEN true WHEN 'resume' THEN false ELSE paused END,
                  hand = CASE WHEN action = 'acknowledge' AND hand = 'raised' THEN 'acknowledged' ELSE hand END,
                  added_seconds = added_seconds + CASE WHEN action = 'time' AND split_part(detail, ' ', 3) ~ '^[0-9]{1,7}$'
                    THEN split_part(detail, ' ', 3)::integer ELSE 0 END,
                  last_command = greatest(last_command, command)
                WHERE session = NEW.session;
            END IF;
          EXCEPTION WHEN others THEN
            -- Kept, not applied (as carrel_apply_record).
            NULL;
          END;
          RETURN NULL;
        END $$;
        """
    }

    /// Version 2's events about commands: a proctor_command event `#ID ACTION[ ARGUMENT]`.
    static let roomRecordCommandsV2 = """
            ELSIF NEW.kind = 'event' AND b->>'kind' = 'proctor_command' AND b->>'detail' ~ '^#[0-9]{1,18} [a-z]+' THEN
              detail := b->>'detail';
              command := substring(detail from '^#([0-9]+) ')::bigint;
        """
}

import Foundation
import Logging
import PostgresNIO

/// The shared store's tables, in versioned migrations of their own (`carrel_schema`).
///
/// Seats only insert records (`carrel_records`, keyed by session and sequence, so a record
/// sent twice is kept once) and report their time (`carrel_pulse`); a trigger owned by the
/// schema's owner keeps one row per session (`carrel_sessions`) and the latest answers,
/// flags and results; the proctor's console reads them once a second.
/// docs/deployment.md shows the roles: a seat's role inserts but cannot read, a proctor's
/// reads everything.
public enum SharedSchema {
    /// The version this build writes and reads.
    public static let version = 4

    /// The channel seats of a room listen on: a command was issued.
    public static let commandChannel = "carrel_commands"

    /// Every migration, in order: (version, SQL). `@SCHEMA@` is the schema Carrel's tables
    /// live in (quoted), used to pin the search path of the functions that run as the owner.
    static let migrations: [(Int, String)] = [
        (1, """
        CREATE TABLE carrel_sessions (
          session text PRIMARY KEY,
          room text NOT NULL,
          seat text NOT NULL,
          candidate text,
          assessment_id text NOT NULL,
          assessment_title text NOT NULL,
          fingerprint text NOT NULL,
          total integer NOT NULL DEFAULT 0,
          time_allowed_seconds double precision,
          elapsed_seconds double precision NOT NULL DEFAULT 0,
          saved_elapsed_seconds double precision NOT NULL DEFAULT 0,
          host text,
          pid integer,
          status text NOT NULL,
          end_reason text,
          started_at timestamptz NOT NULL,
          ended_at timestamptz,
          answered integer NOT NULL DEFAULT 0,
          flagged integer NOT NULL DEFAULT 0,
          paste_attempts integer NOT NULL DEFAULT 0,
          focus_losses integer NOT NULL DEFAULT 0,
          exit_attempts integer NOT NULL DEFAULT 0,
          interruptions integer NOT NULL DEFAULT 0,
          last_seen timestamptz NOT NULL DEFAULT now(),
          last_seq bigint NOT NULL DEFAULT 0,
          lock_key bigint NOT NULL
        );
        CREATE INDEX carrel_sessions_room ON carrel_sessions (room, started_at);
        CREATE TABLE carrel_records (
          session text NOT NULL,
          seq bigint NOT NULL,
          kind text NOT NULL,
          at timestamptz NOT NULL,
          body jsonb NOT NULL,
          received_at timestamptz NOT NULL DEFAULT now(),
          PRIMARY KEY (session, seq)
        );
        CREATE TABLE carrel_answers (
          session text NOT NULL,
          item text NOT NULL,
          response jsonb,
          answered boolean NOT NULL,
          at timestamptz NOT NULL,
          PRIMARY KEY (session, item)
        );
        CREATE TABLE carrel_flags (
          session text NOT NULL,
          item text NOT NULL,
          PRIMARY KEY (session, item)
        );
        CREATE TABLE carrel_results (
          session text PRIMARY KEY,
          json text NOT NULL
        );

        CREATE FUNCTION carrel_number(v jsonb, low double precision, high double precision) RETURNS double precision
          LANGUAGE sql IMMUTABLE SET search_path = @SCHEMA@, pg_temp AS $$
          -- A number a seat sent, kept within [low, high]; NaN, infinities, text and null give null.
          SELECT CASE WHEN jsonb_typeof(v) = 'number' THEN least(greatest(v::text::double precision, low), high) END;
        $$;

        CREATE FUNCTION carrel_apply_record() RETURNS trigger
          LANGUAGE plpgsql SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
        DECLARE
          b jsonb := NEW.body;
          was boolean;
          now_answered boolean;
        BEGIN
          -- Records come from seats, whose role anyone at a seat may use: each one is checked,
          -- and one that cannot be applied is kept as it came but changes nothing else (no
          -- error reaches the seat, whose later records would otherwise wait behind it).
          BEGIN
            IF jsonb_typeof(b) <> 'object' THEN
              RETURN NULL;
            END IF;
            IF NEW.kind = 'session' THEN
              INSERT INTO carrel_sessions (session, room, seat, candidate, assessment_id, assessment_title, fingerprint,
                  total, time_allowed_seconds, host, pid, status, started_at, lock_key, last_seq)
                VALUES (NEW.session, left(coalesce(b->>'room', ''), 200), left(coalesce(b->>'seat', ''), 200),
                  left(b->>'candidate', 200), left(coalesce(b->>'assessment_id', ''), 200),
                  left(coalesce(b->>'assessment_title', ''), 500), left(coalesce(b->>'fingerprint', ''), 200),
                  coalesce(carrel_number(b->'total', 0, 1000000), 0)::integer,
                  carrel_number(b->'time_allowed_seconds', 0, 10000000), left(b->>'host', 200),
                  carrel_number(b->'pid', 0, 2147483647)::integer, 'active', NEW.at, hashtextextended(NEW.session, 0), NEW.seq)
                ON CONFLICT (session) DO UPDATE SET room = excluded.room, seat = excluded.seat, candidate = excluded.candidate,
                  assessment_id = excluded.assessment_id, assessment_title = excluded.assessment_title,
                  fingerprint = excluded.fingerprint, total = excluded.total, time_allowed_seconds = excluded.time_allowed_seconds,
                  host = excluded.host, pid = excluded.pid, status = 'active', started_at = excluded.started_at
                WHERE carrel_sessions.status = 'not_started';
            ELSIF NEW.kind = 'answer' AND jsonb_typeof(b->'item') = 'string' THEN
              now_answered := coalesce(jsonb_typeof(b->'answered') = 'boolean' AND (b->>'answered')::boolean, false);
              SELECT answered INTO was FROM carrel_answers WHERE session = NEW.session AND item = b->>'item';
              INSERT INTO carrel_answers (session, item, response, answered, at)
                VALUES (NEW.session, b->>'item', b->'response', now_answered, NEW.at)
                ON CONFLICT (session, item) DO UPDATE
                  SET response = excluded.response, answered = excluded.answered, at = excluded.at;
              UPDATE carrel_sessions
                SET answered = answered + (CASE WHEN now_answered THEN 1 ELSE 0 END) - (CASE WHEN coalesce(was, false) THEN 1 ELSE 0 END)
                WHERE session = NEW.session;
            ELSIF NEW.kind = 'flag' AND jsonb_typeof(b->'item') = 'string' THEN
              IF jsonb_typeof(b->'on') = 'boolean' AND (b->>'on')::boolean THEN
                INSERT INTO carrel_flags (session, item) VALUES (NEW.session, b->>'item') ON CONFLICT DO NOTHING;
                IF FOUND THEN UPDATE carrel_sessions SET flagged = flagged + 1 WHERE session = NEW.session; END IF;
              ELSE
                DELETE FROM carrel_flags WHERE session = NEW.session AND item = b->>'item';
                IF FOUND THEN UPDATE carrel_sessions SET flagged = flagged - 1 WHERE session = NEW.session; END IF;
              END IF;
            ELSIF NEW.kind = 'event' THEN
              UPDATE carrel_sessions SET
                  paste_attempts = paste_attempts + (CASE WHEN b->>'kind' = 'paste_blocked' THEN 1 ELSE 0 END),
                  focus_losses = focus_losses + (CASE WHEN b->>'kind' = 'focus_lost' THEN 1 ELSE 0 END),
                  exit_attempts = exit_attempts + (CASE WHEN b->>'kind' = 'exit_attempt' THEN 1 ELSE 0 END)
                WHERE session = NEW.session;
            ELSIF NEW.kind = 'status' AND b->>'status' IN ('active', 'review', 'ending', 'ended', 'interrupted', 'abandoned')
                  AND (b->>'end_reason' IS NULL OR b->>'end_reason' IN ('submitted', 'timed_out', 'ended_by_proctor', 'ended_by_candidate')) THEN
              UPDATE carrel_sessions SET status = b->>'status', end_reason = b->>'end_reason',
                  ended_at = CASE WHEN jsonb_typeof(b->'ended_at') = 'string' THEN (b->>'ended_at')::timestamptz END
                WHERE session = NEW.session;
            ELSIF NEW.kind = 'resumed' THEN
              UPDATE carrel_sessions SET status = 'active', interruptions = interruptions + 1,
                  pid = carrel_number(b->'pid', 0, 2147483647)::integer
                WHERE session = NEW.session;
            ELSIF NEW.kind = 'result' AND jsonb_typeof(b->'json') = 'string' THEN
              INSERT INTO carrel_results (session, json) VALUES (NEW.session, b->>'json')
                ON CONFLICT (session) DO UPDATE SET json = excluded.json;
            END IF;
            -- The time used as the seat's journal saved it: its own record ('progress'), or
            -- carried by an answer or a flag saved with it.
            UPDATE carrel_sessions SET last_seen = now(), last_seq = greatest(last_seq, NEW.seq),
                saved_elapsed_seconds = coalesce(carrel_number(b->'elapsed', 0, 10000000), saved_elapsed_seconds)
              WHERE session = NEW.session;
          EXCEPTION WHEN others THEN
            -- Kept, not applied (see above).
            NULL;
          END;
          RETURN NULL;
        END $$;
        CREATE TRIGGER carrel_records_apply AFTER INSERT ON carrel_records
          FOR EACH ROW EXECUTE FUNCTION carrel_apply_record();

        CREATE FUNCTION carrel_records_notify() RETURNS trigger
          LANGUAGE plpgsql SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
        BEGIN
          PERFORM pg_notify('carrel_seats', '');
          RETURN NULL;
        END $$;
        CREATE TRIGGER carrel_records_notify AFTER INSERT ON carrel_records
          FOR EACH STATEMENT EXECUTE FUNCTION carrel_records_notify();

        CREATE FUNCTION carrel_pulse(p_session text, p_elapsed double precision) RETURNS void
          LANGUAGE sql SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
          UPDATE carrel_sessions SET last_seen = now(),
              elapsed_seconds = coalesce(least(greatest(p_elapsed, 0), 10000000), elapsed_seconds)
            WHERE session = p_session;
        $$;

        CREATE FUNCTION carrel_hello(p_session text, p_body jsonb) RETURNS void
          LANGUAGE sql SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
          INSERT INTO carrel_sessions (session, room, seat, candidate, assessment_id, assessment_title, fingerprint,
              total, time_allowed_seconds, host, pid, status, started_at, lock_key)
            VALUES (p_session, left(coalesce(p_body->>'room', ''), 200), left(coalesce(p_body->>'seat', ''), 200),
              left(p_body->>'candidate', 200), left(coalesce(p_body->>'assessment_id', ''), 200),
              left(coalesce(p_body->>'assessment_title', ''), 500), '',
              coalesce(carrel_number(p_body->'total', 0, 1000000), 0)::integer,
              carrel_number(p_body->'time_allowed_seconds', 0, 10000000),
              left(p_body->>'host', 200), carrel_number(p_body->'pid', 0, 2147483647)::integer,
              'not_started', now(), hashtextextended(p_session, 0))
            ON CONFLICT (session) DO UPDATE SET last_seen = now() WHERE carrel_sessions.status = 'not_started';
        $$;

        CREATE FUNCTION carrel_schema_version() RETURNS integer
          LANGUAGE sql STABLE SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
          SELECT max(version) FROM carrel_schema;
        $$;
        REVOKE ALL ON FUNCTION carrel_pulse(text, double precision) FROM PUBLIC;
        REVOKE ALL ON FUNCTION carrel_hello(text, jsonb) FROM PUBLIC;
        """),
        (2, roomMigration),
        (3, quietRecordsMigration),
        (4, signedCommandsMigration),
    ]

    /// Signed commands: each command keeps the envelope the proctor signed and its signature
    /// (seats read those and nothing else of it), the room keeps its test's public key, and a
    /// seat's refusals of commands are counted for the console. The functions that replace
    /// `carrel_seat_commands` and add the start and refusal calls are granted to every role
    /// that could call the old one.
    static let signedCommandsMigration = """
        ALTER TABLE carrel_commands
          ADD COLUMN envelope text CHECK (envelope IS NULL OR octet_length(envelope) <= 8192),
          ADD COLUMN signature text CHECK (signature IS NULL OR octet_length(signature) <= 200),
          ADD COLUMN sequence bigint,
          ADD COLUMN session text CHECK (session IS NULL OR octet_length(session) <= 200);
        CREATE INDEX carrel_commands_session ON carrel_commands (session) WHERE session IS NOT NULL;
        ALTER TABLE carrel_rooms
          ADD COLUMN proctor_key text CHECK (proctor_key IS NULL OR octet_length(proctor_key) <= 400),
          ADD COLUMN package text CHECK (package IS NULL OR octet_length(package) <= 200);
        ALTER TABLE carrel_sessions
          ADD COLUMN refused integer NOT NULL DEFAULT 0,
          ADD COLUMN last_refusal text,
          ADD COLUMN seat_key text,
          ADD COLUMN backend_pid integer,
          ADD COLUMN live_mac text,
          ADD COLUMN live_at timestamptz;

        -- Records: each keeps the text its seat sent and the MAC the seat made of it (with
        -- the key of the session, which only the start from the proctor gives). A record already
        -- there with the same session and number no longer keeps a later one out: only the same
        -- record sent again (same MAC) is skipped, so nothing written first can hide one.
        ALTER TABLE carrel_records
          ADD COLUMN body_text text,
          ADD COLUMN mac text CHECK (mac IS NULL OR octet_length(mac) <= 100);
        ALTER TABLE carrel_records DROP CONSTRAINT carrel_records_pkey;
        CREATE UNIQUE INDEX carrel_records_unsigned ON carrel_records (session, seq) WHERE mac IS NULL;
        CREATE UNIQUE INDEX carrel_records_signed ON carrel_records (session, seq, mac) WHERE mac IS NOT NULL;
        CREATE INDEX carrel_records_session ON carrel_records (session, seq);
        CREATE OR REPLACE FUNCTION carrel_records_cap() RETURNS trigger
          LANGUAGE plpgsql SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
        BEGIN
          -- As in version 2, the text as sent counted too.
          IF octet_length(NEW.body::text) > 4194304 OR octet_length(coalesce(NEW.body_text, '')) > 4194304
             OR octet_length(NEW.session) > 200 OR octet_length(NEW.kind) > 40 THEN
            RETURN NULL;
          END IF;
          RETURN NEW;
        END $$;

        CREATE OR REPLACE FUNCTION carrel_hello(p_session text, p_body jsonb) RETURNS void
          LANGUAGE sql SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
          -- As in version 2, with the seat's public key for the proctor's start (`box_key`).
          INSERT INTO carrel_sessions (session, room, seat, candidate, assessment_id, assessment_title, fingerprint,
              total, time_allowed_seconds, host, pid, status, started_at, lock_key, candidate_number, attestation, seat_key)
            VALUES (p_session, left(coalesce(p_body->>'room', ''), 200), left(coalesce(p_body->>'seat', ''), 200),
              left(p_body->>'candidate', 200), left(coalesce(p_body->>'assessment_id', ''), 200),
              left(coalesce(p_body->>'assessment_title', ''), 500), '',
              coalesce(carrel_number(p_body->'total', 0, 1000000), 0)::integer,
              carrel_number(p_body->'time_allowed_seconds', 0, 10000000),
              left(p_body->>'host', 200), carrel_number(p_body->'pid', 0, 2147483647)::integer,
              'not_started', now(), hashtextextended(p_session, 0), left(p_body->>'candidate_number', 64),
              CASE WHEN jsonb_typeof(p_body->'attestation') = 'object' AND octet_length((p_body->'attestation')::text) <= 4000
                THEN p_body->'attestation' END,
              CASE WHEN p_body->>'box_key' ~ '^[A-Za-z0-9+/]{43}=$' THEN p_body->>'box_key' END)
            ON CONFLICT (session) DO UPDATE SET last_seen = now() WHERE carrel_sessions.status = 'not_started';
        $$;

        CREATE FUNCTION carrel_live(p_session text, p_mac text, p_elapsed double precision) RETURNS void
          LANGUAGE sql SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
          -- The pulse of a seat with a session key, and its claim to this connection: its server
          -- process, taken here (no caller can name another's), with the seat's MAC of it. A
          -- console with the proctor's key counts the seat live while that process lives and
          -- the MAC verifies; a claim someone else overwrote is made again at the next pulse.
          UPDATE carrel_sessions SET backend_pid = pg_backend_pid(), live_mac = left(p_mac, 100), live_at = now(), last_seen = now(),
              elapsed_seconds = coalesce(least(greatest(p_elapsed, 0), 10000000), elapsed_seconds)
            WHERE session = p_session;
        $$;

        CREATE FUNCTION carrel_seat_signed_commands(p_room text, p_seat text, p_after bigint)
          RETURNS TABLE (id bigint, envelope text, signature text)
          LANGUAGE sql STABLE SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
          -- As carrel_seat_commands, but what was signed: the seat verifies it and reads the
          -- command from it alone.
          SELECT c.id, c.envelope, c.signature FROM carrel_commands c
            WHERE c.room = p_room AND (c.seat IS NULL OR c.seat = p_seat) AND c.id > p_after AND c.action <> 'start'
            ORDER BY c.id LIMIT 200;
        $$;
        CREATE FUNCTION carrel_seat_starts(p_room text, p_seat text, p_after bigint)
          RETURNS TABLE (id bigint, envelope text, signature text)
          LANGUAGE sql STABLE SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
          -- The starts for this seat (or its whole room) after p_after, newest first: a waiting
          -- seat begins with the newest one that verifies.
          SELECT c.id, c.envelope, c.signature FROM carrel_commands c
            WHERE c.room = p_room AND (c.seat IS NULL OR c.seat = p_seat) AND c.id > p_after AND c.action = 'start'
            ORDER BY c.id DESC LIMIT 20;
        $$;
        CREATE FUNCTION carrel_command_refused(p_session text, p_detail text) RETURNS void
          LANGUAGE sql SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
          -- A seat waiting at its start screen refused a start: shown to the proctor.
          UPDATE carrel_sessions SET refused = refused + 1, last_refusal = left(p_detail, 300)
            WHERE session = p_session AND status = 'not_started';
        $$;

        CREATE OR REPLACE FUNCTION carrel_apply_room_record() RETURNS trigger
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
            ELSIF NEW.kind = 'event' AND b->>'kind' = 'command_refused' THEN
              UPDATE carrel_sessions SET refused = refused + 1, last_refusal = left(b->>'detail', 300)
                WHERE session = NEW.session;
            ELSIF NEW.kind = 'event' AND b->>'kind' = 'proctor_command' AND b->>'detail' ~ '^#[0-9]{1,18}(\\.[0-9]{1,19})? [a-z]+' THEN
              -- `#ID[.SEQUENCE] ACTION[ ARGUMENT]`: the seat applied the command it verified.
              detail := b->>'detail';
              command := substring(detail from '^#([0-9]+)')::bigint;
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

        REVOKE ALL ON FUNCTION carrel_seat_signed_commands(text, text, bigint) FROM PUBLIC;
        REVOKE ALL ON FUNCTION carrel_seat_starts(text, text, bigint) FROM PUBLIC;
        REVOKE ALL ON FUNCTION carrel_command_refused(text, text) FROM PUBLIC;
        CREATE FUNCTION carrel_seat_kept(p_sessions text[], p_seqs int8[], p_digests text[], p_macs text[]) RETURNS int8
          LANGUAGE sql STABLE SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
          -- How many of the records a seat just sent the store holds as sent (same text, same
          -- MAC): the seat says so when one was kept out by another written first.
          SELECT count(*) FROM unnest(p_sessions[1:1000], p_seqs[1:1000], p_digests[1:1000], p_macs[1:1000]) AS u(s, q, d, m)
          WHERE EXISTS (SELECT 1 FROM carrel_records r WHERE r.session = u.s AND r.seq = u.q AND coalesce(r.mac, '') = u.m
                          AND encode(sha256(convert_to(coalesce(r.body_text, ''), 'UTF8')), 'hex') = u.d);
        $$;
        REVOKE ALL ON FUNCTION carrel_seat_kept(text[], int8[], text[], text[]) FROM PUBLIC;
        REVOKE ALL ON FUNCTION carrel_live(text, text, double precision) FROM PUBLIC;
        REVOKE ALL ON FUNCTION carrel_hello(text, jsonb) FROM PUBLIC;
        DO $$
        DECLARE
          r record;
        BEGIN
          FOR r IN SELECT DISTINCT grantee FROM information_schema.role_routine_grants
                   WHERE routine_name = 'carrel_seat_commands' AND privilege_type = 'EXECUTE'
                     AND routine_schema = current_schema() AND grantee <> current_user LOOP
            EXECUTE format('GRANT EXECUTE ON FUNCTION carrel_seat_signed_commands(text, text, bigint), '
              'carrel_seat_starts(text, text, bigint), carrel_command_refused(text, text), carrel_live(text, text, double precision), '
              'carrel_seat_kept(text[], int8[], text[], text[]) TO %I', r.grantee);
          END LOOP;
        END $$
        """

    /// No notice per record: PostgreSQL signals every listening backend of the database for
    /// each notice, whatever channel it listens on, so with a thousand seats listening for the
    /// proctor's commands a notice per record kept every one of them busy (and the console
    /// re-reading the room without pause). The console reads once a second instead.
    static let quietRecordsMigration = """
        DROP TRIGGER IF EXISTS carrel_records_notify ON carrel_records;
        DROP FUNCTION IF EXISTS carrel_records_notify();
        """

    /// Rooms: the proctor's plan of a room (its test, roster and way of starting), the
    /// proctor's commands to seats, which session applied which command, and what each seat
    /// says of itself (attestation). Seats read their own room's plan and commands through
    /// functions that run as the owner and return nothing else; they still read no table.
    static let roomMigration = """
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

        CREATE OR REPLACE FUNCTION carrel_hello(p_session text, p_body jsonb) RETURNS void
          LANGUAGE sql SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
          -- As in version 1, with the candidate's roster number and what the seat says of itself.
          INSERT INTO carrel_sessions (session, room, seat, candidate, assessment_id, assessment_title, fingerprint,
              total, time_allowed_seconds, host, pid, status, started_at, lock_key, candidate_number, attestation)
            VALUES (p_session, left(coalesce(p_body->>'room', ''), 200), left(coalesce(p_body->>'seat', ''), 200),
              left(p_body->>'candidate', 200), left(coalesce(p_body->>'assessment_id', ''), 200),
              left(coalesce(p_body->>'assessment_title', ''), 500), '',
              coalesce(carrel_number(p_body->'total', 0, 1000000), 0)::integer,
              carrel_number(p_body->'time_allowed_seconds', 0, 10000000),
              left(p_body->>'host', 200), carrel_number(p_body->'pid', 0, 2147483647)::integer,
              'not_started', now(), hashtextextended(p_session, 0), left(p_body->>'candidate_number', 64),
              CASE WHEN jsonb_typeof(p_body->'attestation') = 'object' AND octet_length((p_body->'attestation')::text) <= 4000
                THEN p_body->'attestation' END)
            ON CONFLICT (session) DO UPDATE SET last_seen = now() WHERE carrel_sessions.status = 'not_started';
        $$;
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

        CREATE FUNCTION carrel_apply_room_record() RETURNS trigger
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
            ELSIF NEW.kind = 'event' AND b->>'kind' = 'proctor_command' AND b->>'detail' ~ '^#[0-9]{1,18} [a-z]+' THEN
              detail := b->>'detail';
              command := substring(detail from '^#([0-9]+) ')::bigint;
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

    public struct Problem: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// Brings the store's schema to this build's version when it is behind and this role may
    /// change it; concurrent callers (many seats starting at once) wait for one another.
    /// Throws when the store is newer than this build, or older and this role cannot update it.
    public static func prepare(_ connection: PostgresConnection, logger: Logger) async throws {
        if let current = try await installedVersion(connection, logger: logger), current >= version {
            if current > version {
                throw Problem(description: "the shared store's schema is version \(current), newer than this Carrel (\(version)); update Carrel on this machine")
            }
            return
        }
        try await StoreCall.run(connection, "BEGIN", logger: logger)
        do {
            try await migrate(connection, logger: logger)
            try await StoreCall.run(connection, "COMMIT", logger: logger)
        } catch {
            // The first error is the one to report; a connection that closed has rolled back.
            if !connection.isClosed { try? await StoreCall.run(connection, "ROLLBACK", logger: logger) }
            if let psql = error as? PSQLError, let state = psql.serverInfo?[.sqlState], state == "42501" {
                throw Problem(description: "the shared store has no Carrel schema (version \(version)) and this role may not create it; run `carrel proctor --json` once as the store's owner (docs/deployment.md)")
            }
            throw error
        }
    }

    /// The migrations this store lacks, inside the transaction `prepare` opened.
    static func migrate(_ c: PostgresConnection, logger: Logger) async throws {
        // One migrating role at a time (a constant key of Carrel's own).
        try await StoreCall.run(c, "SELECT pg_advisory_xact_lock(746163617272)", logger: logger)
        try await StoreCall.run(c, "CREATE TABLE IF NOT EXISTS carrel_schema (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())", logger: logger)
        let current = try await StoreCall.value(c, "SELECT coalesce(max(version), 0) FROM carrel_schema", as: Int.self, logger: logger) ?? 0
        let schema = try await StoreCall.value(c, "SELECT quote_ident(current_schema())", as: String.self, logger: logger) ?? "public"
        for (number, sql) in migrations where number > current {
            // One statement at a time: PostgresNIO speaks the extended protocol only.
            for statement in statements(sql.replacingOccurrences(of: "@SCHEMA@", with: schema)) {
                try await StoreCall.run(c, PostgresQuery(unsafeSQL: statement), logger: logger)
            }
            try await StoreCall.run(c, "INSERT INTO carrel_schema (version) VALUES (\(number))", logger: logger)
        }
    }

    /// The statements of a migration: split at each `;` outside quotes and `$$` bodies.
    static func statements(_ sql: String) -> [String] {
        var out: [String] = []
        var current = ""
        var inDollar = false
        var inQuote = false
        var previous: Character = " "
        for ch in sql {
            if ch == "$" && previous == "$" && !inQuote {
                inDollar.toggle()
            } else if ch == "'" && !inDollar {
                inQuote.toggle()
            }
            if ch == ";" && !inDollar && !inQuote {
                let trimmed = current.trimmingCharacters(in: .whitespacesAndNewlines)
                if !trimmed.isEmpty { out.append(trimmed) }
                current = ""
            } else {
                current.append(ch)
            }
            previous = ch == "$" && previous == "$" ? " " : ch
        }
        let trimmed = current.trimmingCharacters(in: .whitespacesAndNewlines)
        if !trimmed.isEmpty { out.append(trimmed) }
        return out
    }

    /// The installed version, or nil when the store has no Carrel schema.
    static func installedVersion(_ connection: PostgresConnection, logger: Logger) async throws -> Int? {
        let present = try await StoreCall.value(connection, "SELECT to_regprocedure('carrel_schema_version()') IS NOT NULL",
                                                as: Bool.self, logger: logger) ?? false
        guard present else { return nil }
        return try await StoreCall.value(connection, "SELECT carrel_schema_version()", as: Int?.self, logger: logger) ?? nil
    }
}

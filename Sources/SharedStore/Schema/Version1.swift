extension SharedSchema {
    /// Version 1, sessions: seats insert records (keyed by session and sequence, so a record
    /// sent twice is kept once) and report their time; a trigger owned by the schema's owner
    /// keeps one row per session and the latest answers, flags and results.
    static let version1Sessions = """
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

        \(helloFunction("CREATE"))

        CREATE FUNCTION carrel_schema_version() RETURNS integer
          LANGUAGE sql STABLE SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
          SELECT max(version) FROM carrel_schema;
        $$;
        REVOKE ALL ON FUNCTION carrel_pulse(text, double precision) FROM PUBLIC;
        REVOKE ALL ON FUNCTION carrel_hello(text, jsonb) FROM PUBLIC;
        """

    /// `carrel_hello`: the row a seat makes for its session at the start screen (status
    /// not_started), or only its time heard when the row is there. Versions 2 and 4 each
    /// define it again with more columns: `columns` and `values` are what a version adds
    /// after version 1's (`note`, a comment in its body saying so). Stores have run every
    /// version's text, so this one never changes: a new definition is a new version's.
    static func helloFunction(_ create: String, note: String? = nil, columns: String = "", values: String = "") -> String {
        let comment = note.map { "  -- \($0)\n" } ?? ""
        return """
        \(create) FUNCTION carrel_hello(p_session text, p_body jsonb) RETURNS void
          LANGUAGE sql SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
        \(comment)  INSERT INTO carrel_sessions (session, room, seat, candidate, assessment_id, assessment_title, fingerprint,
              total, time_allowed_seconds, host, pid, status, started_at, lock_key\(columns))
            VALUES (p_session, left(coalesce(p_body->>'room', ''), 200), left(coalesce(p_body->>'seat', ''), 200),
              left(p_body->>'candidate', 200), left(coalesce(p_body->>'assessment_id', ''), 200),
              left(coalesce(p_body->>'assessment_title', ''), 500), '',
              coalesce(carrel_number(p_body->'total', 0, 1000000), 0)::integer,
              carrel_number(p_body->'time_allowed_seconds', 0, 10000000),
              left(p_body->>'host', 200), carrel_number(p_body->'pid', 0, 2147483647)::integer,
              'not_started', now(), hashtextextended(p_session, 0)\(values))
            ON CONFLICT (session) DO UPDATE SET last_seen = now() WHERE carrel_sessions.status = 'not_started';
        $$;
        """
    }
}

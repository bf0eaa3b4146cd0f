extension SharedSchema {
    /// Version 9, the seat's role keeps to what is its own on a shared server. A student who
    /// knows the seat role's password reached what PostgreSQL shares among every connection of
    /// the cluster, which no Carrel quota counted: the lock table (advisory locks), the NOTIFY
    /// queue (a listener held idle in a transaction, its timeouts lifted by SET), large objects
    /// and temporary space. `carrel store init` takes the functions and the TEMP right from
    /// PUBLIC (the cluster's superuser does: docs/deployment.md); this version gives the seat
    /// what it used of them through the owner's functions:
    ///
    /// - `carrel_seat_lock` takes the seat's liveness lock (the key the console reads in
    ///   `pg_locks`, `hashtextextended(session, 0)`) for a session its caller proves, and
    ///   refuses a second one on a connection that holds one; `carrel_seat_unlock` lets it go.
    /// - `carrel_sweep`, the janitor: ends the connections of the seat role and of its members
    ///   (enrolled machines' logins) idle in a transaction for more than 5 seconds, in one
    ///   transaction for more than 30, running one statement for more than 15 (the role's
    ///   10-second statement timeout and a margin), or holding more than one advisory lock;
    ///   never another role's, never its caller's. Every seat's pulse runs it, at most once
    ///   every 3 seconds for the whole store (`carrel_sweeps`), and so does the console; each
    ///   connection ended is kept in `carrel_terminations`, which proctors read.
    /// - `carrel_seat_refused(session, token, body)`: a refusal is reported for a session its
    ///   seat proves (the token-less version of version 2 is taken from every seat's role).
    /// - A candidate's number is tried only by a session its seat announced in the room and
    ///   proves (`carrel_hello` first: the seat's row, within the room's quota of places); five
    ///   wrong codes hold the candidate for that session only (the proctor's release frees every
    ///   session's hold); a session tries at most 30 numbers a day and an enrolled machine's
    ///   login 300, in place of version 6's cap for the whole room.
    /// - `carrel_hello`: the row a seat made for the roster's look-up (no test named yet, no
    ///   record) is made again from the seat's full announcement, in the same room and seat.
    static let version9SharedResources = """
        CREATE TABLE carrel_sweeps (
          one boolean PRIMARY KEY DEFAULT true CHECK (one),
          last_at timestamptz NOT NULL DEFAULT '-infinity');
        INSERT INTO carrel_sweeps DEFAULT VALUES;
        CREATE TABLE carrel_terminations (
          id bigserial PRIMARY KEY,
          at timestamptz NOT NULL DEFAULT clock_timestamp(),
          pid integer NOT NULL,
          login text NOT NULL,
          reason text NOT NULL,
          ended boolean NOT NULL,
          swept_by text NOT NULL DEFAULT session_user);
        CREATE INDEX carrel_terminations_at ON carrel_terminations (at);
        REVOKE ALL ON carrel_sweeps FROM PUBLIC;
        REVOKE ALL ON carrel_terminations FROM PUBLIC;
        CREATE INDEX carrel_candidate_tries_session ON carrel_candidate_tries (session, at);

        CREATE FUNCTION carrel_sweep() RETURNS integer
          LANGUAGE plpgsql SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
        DECLARE
          swept_at timestamptz;
          seat_oid oid;
          b record;
          ok boolean;
          n integer := 0;
        BEGIN
          -- At most once every 3 seconds for the store. The row is claimed without waiting: a
          -- connection that keeps it locked (a sweep called in a transaction left open) only
          -- makes the others sweep without it once it is 15 seconds old — and is itself ended.
          SELECT s.last_at INTO swept_at FROM carrel_sweeps s;
          IF swept_at > clock_timestamp() - interval '3 seconds' THEN RETURN 0; END IF;
          PERFORM 1 FROM carrel_sweeps s WHERE s.last_at = swept_at FOR UPDATE SKIP LOCKED;
          IF FOUND THEN
            UPDATE carrel_sweeps SET last_at = clock_timestamp();
          ELSIF swept_at > clock_timestamp() - interval '15 seconds' THEN
            RETURN 0;
          END IF;
          SELECT r.oid INTO seat_oid FROM pg_roles r, carrel_logins l WHERE r.rolname = l.seat_role;
          IF seat_oid IS NULL THEN RETURN 0; END IF;
          FOR b IN
            SELECT x.pid, x.login, x.reason FROM (
              SELECT a.pid, r.rolname::text AS login, CASE
                  WHEN a.state IN ('idle in transaction', 'idle in transaction (aborted)')
                       AND a.state_change < clock_timestamp() - interval '5 seconds'
                    THEN 'idle in a transaction for more than 5 seconds'
                  WHEN a.xact_start < clock_timestamp() - interval '30 seconds'
                    THEN 'in one transaction for more than 30 seconds'
                  WHEN a.state = 'active' AND a.query_start < clock_timestamp() - interval '15 seconds'
                    THEN 'one statement for more than 15 seconds'
                  WHEN (SELECT count(*) FROM pg_locks l WHERE l.pid = a.pid AND l.locktype = 'advisory') > 1
                    THEN 'more than one advisory lock'
                END AS reason
              FROM pg_stat_activity a JOIN pg_roles r ON r.oid = a.usesysid
              WHERE a.pid <> pg_backend_pid() AND a.backend_type = 'client backend' AND NOT r.rolsuper
                AND (r.oid = seat_oid OR EXISTS (SELECT 1 FROM pg_auth_members m WHERE m.member = r.oid AND m.roleid = seat_oid))
            ) x WHERE x.reason IS NOT NULL
          LOOP
            BEGIN
              ok := pg_terminate_backend(b.pid);
            EXCEPTION WHEN insufficient_privilege OR undefined_function THEN
              -- The owner lacks pg_signal_backend (or EXECUTE): kept as not ended, for the proctor.
              ok := false;
            END;
            INSERT INTO carrel_terminations (pid, login, reason, ended) VALUES (b.pid, b.login, b.reason, coalesce(ok, false));
            n := n + 1;
          END LOOP;
          RETURN n;
        END $$;

        CREATE FUNCTION carrel_seat_lock(p_session text, p_token text, p_previous text) RETURNS boolean
          LANGUAGE plpgsql SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
        DECLARE
          k bigint := hashtextextended(p_session, 0);
        BEGIN
          -- The seat's liveness lock for a session it proves; one a connection.
          IF NOT carrel_proven(p_session, p_token, p_previous) THEN RETURN false; END IF;
          IF EXISTS (SELECT 1 FROM pg_locks l WHERE l.pid = pg_backend_pid() AND l.locktype = 'advisory' AND l.granted
                       AND l.objsubid = 1 AND ((l.classid::bigint << 32) | l.objid::bigint) = k) THEN
            RETURN true;
          END IF;
          IF EXISTS (SELECT 1 FROM pg_locks l WHERE l.pid = pg_backend_pid() AND l.locktype = 'advisory') THEN
            RAISE EXCEPTION 'carrel: this connection holds a seat''s lock already (one a connection)' USING ERRCODE = '55000';
          END IF;
          RETURN pg_try_advisory_lock(k);
        END $$;

        CREATE FUNCTION carrel_seat_unlock(p_session text) RETURNS boolean
          LANGUAGE sql SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
          -- Only this connection's own lock (PostgreSQL frees no other's).
          SELECT pg_advisory_unlock(hashtextextended(p_session, 0));
        $$;

        CREATE OR REPLACE FUNCTION carrel_pulse(p_session text, p_token text, p_previous text, p_elapsed double precision)
          RETURNS boolean LANGUAGE plpgsql SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
        BEGIN
          IF NOT carrel_proven(p_session, p_token, p_previous) THEN RETURN false; END IF;
          PERFORM carrel_pulse(p_session, p_elapsed);
          BEGIN
            PERFORM carrel_sweep();
          EXCEPTION WHEN others THEN
            -- A sweep that fails (a server without the owner's rights) never stops a pulse.
            NULL;
          END;
          RETURN true;
        END $$;

        CREATE OR REPLACE FUNCTION carrel_live(p_session text, p_token text, p_previous text, p_mac text, p_elapsed double precision)
          RETURNS boolean LANGUAGE plpgsql SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
        BEGIN
          IF NOT carrel_proven(p_session, p_token, p_previous) THEN RETURN false; END IF;
          PERFORM carrel_live(p_session, p_mac, p_elapsed);
          BEGIN
            PERFORM carrel_sweep();
          EXCEPTION WHEN others THEN
            NULL;
          END;
          RETURN true;
        END $$;

        CREATE OR REPLACE FUNCTION carrel_hello(p_session text, p_body jsonb, p_token text) RETURNS boolean
          LANGUAGE plpgsql SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
        DECLARE
          prior carrel_sessions%ROWTYPE;
        BEGIN
          IF carrel_token_hash(p_token) IS NULL OR octet_length(p_session) NOT BETWEEN 1 AND 200 THEN
            RAISE EXCEPTION 'carrel: a seat''s announcement needs its session and a token of 32 to 100 characters'
              USING ERRCODE = '22023';
          END IF;
          IF EXISTS (SELECT 1 FROM carrel_sessions WHERE session = p_session) THEN
            IF NOT carrel_proven(p_session, p_token, NULL) THEN RETURN false; END IF;
            -- The row made for the roster's look-up, once, from the full announcement.
            IF coalesce(p_body->>'assessment_id', '') <> '' THEN
              DELETE FROM carrel_sessions s WHERE s.session = p_session AND s.status = 'not_started' AND s.records_count = 0
                  AND s.assessment_id = '' AND s.room = left(coalesce(p_body->>'room', ''), 200)
                  AND s.seat = left(coalesce(p_body->>'seat', ''), 200)
                RETURNING s.* INTO prior;
              IF prior.session IS NOT NULL THEN
                PERFORM carrel_hello(p_session, p_body);
                UPDATE carrel_sessions SET token_hash = prior.token_hash, hello_hash = prior.hello_hash, created_room = prior.created_room,
                    created_at = prior.created_at, created_by = prior.created_by
                  WHERE session = p_session;
                RETURN true;
              END IF;
            END IF;
            UPDATE carrel_sessions SET last_seen = now() WHERE session = p_session AND status = 'not_started';
            RETURN true;
          END IF;
          IF NOT carrel_room_has_place(left(coalesce(p_body->>'room', ''), 200)) THEN
            RAISE EXCEPTION 'carrel: room % takes no more seats today that its proctor has not started (its quota); ask the proctor',
              left(coalesce(p_body->>'room', ''), 200) USING ERRCODE = '53400';
          END IF;
          PERFORM carrel_hello(p_session, p_body);
          UPDATE carrel_sessions SET token_hash = carrel_token_hash(p_token), hello_hash = carrel_token_hash(p_token),
              created_room = left(coalesce(p_body->>'room', ''), 200)
            WHERE session = p_session AND token_hash IS NULL;
          RETURN true;
        END $$;

        CREATE FUNCTION carrel_seat_refused(p_session text, p_token text, p_body jsonb) RETURNS boolean
          LANGUAGE plpgsql SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
        DECLARE
          prior carrel_sessions%ROWTYPE;
        BEGIN
          -- A refusal, for a session its seat proves: a new one within the room's places, or
          -- the row its seat made for the roster's look-up (no record yet, not started).
          IF carrel_token_hash(p_token) IS NULL OR octet_length(p_session) NOT BETWEEN 1 AND 200 THEN RETURN false; END IF;
          IF EXISTS (SELECT 1 FROM carrel_sessions WHERE session = p_session) THEN
            IF NOT carrel_proven(p_session, p_token, NULL) OR carrel_admitted(p_session) THEN RETURN false; END IF;
            DELETE FROM carrel_sessions s WHERE s.session = p_session AND s.status = 'not_started' AND s.records_count = 0
                AND s.room = left(coalesce(p_body->>'room', ''), 200)
              RETURNING s.* INTO prior;
            IF prior.session IS NULL THEN RETURN false; END IF;
          ELSIF NOT carrel_room_has_place(left(coalesce(p_body->>'room', ''), 200)) THEN
            RETURN false;
          END IF;
          PERFORM carrel_seat_refused(p_session, p_body);
          UPDATE carrel_sessions SET token_hash = coalesce(prior.token_hash, carrel_token_hash(p_token)),
              hello_hash = coalesce(prior.hello_hash, carrel_token_hash(p_token)),
              created_room = coalesce(prior.created_room, left(coalesce(p_body->>'room', ''), 200)),
              created_at = coalesce(prior.created_at, created_at),
              created_by = CASE WHEN prior.session IS NOT NULL THEN prior.created_by ELSE created_by END
            WHERE session = p_session;
          RETURN EXISTS (SELECT 1 FROM carrel_sessions WHERE session = p_session);
        END $$;

        CREATE FUNCTION carrel_candidate_held(p_room text, p_number text, p_session text, p_before bigint) RETURNS boolean
          LANGUAGE sql STABLE SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
          -- Five failed tries of this number by this session (before try p_before) since the room
          -- opened or the proctor's last release of the candidate.
          SELECT count(*) >= 5 FROM carrel_candidate_tries t, carrel_rooms r
            WHERE r.room = p_room AND t.room = p_room AND t.number = p_number AND t.session = p_session AND t.id < p_before
              AND t.at > r.opened_at
              AND t.at > coalesce((SELECT max(x.at) FROM carrel_candidate_releases x
                                   WHERE x.room = p_room AND lower(x.candidate) = p_number), '-infinity')
              AND carrel_candidate_entry(p_room, t.number, t.code_hash) IS NULL;
        $$;

        CREATE OR REPLACE FUNCTION carrel_candidate_try(p_room text, p_session text, p_token text, p_number text, p_code text)
          RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
        DECLARE
          id bigint;
        BEGIN
          -- A try by a session its seat announced in this room and proves; recorded, not
          -- answered (`carrel_candidate` answers it from another transaction).
          IF carrel_token_hash(p_token) IS NULL OR octet_length(p_session) NOT BETWEEN 1 AND 200
             OR octet_length(p_number) NOT BETWEEN 1 AND 64 OR octet_length(p_code) > 100 THEN
            RAISE EXCEPTION 'carrel: a try needs a session, a token, a number of at most 64 bytes' USING ERRCODE = '22023';
          END IF;
          IF NOT EXISTS (SELECT 1 FROM carrel_rooms WHERE room = p_room AND closed_at IS NULL) THEN
            RAISE EXCEPTION 'carrel: room % has no open plan', left(p_room, 200) USING ERRCODE = '22023';
          END IF;
          IF NOT EXISTS (SELECT 1 FROM carrel_sessions s WHERE s.session = p_session AND s.created_room = p_room)
             OR NOT carrel_proven(p_session, p_token, NULL) THEN
            RAISE EXCEPTION 'carrel: a try needs a session this seat announced in room %', left(p_room, 200) USING ERRCODE = '22023';
          END IF;
          IF (SELECT count(*) FROM carrel_candidate_tries t WHERE t.session = p_session AND t.at > clock_timestamp() - interval '1 day') >= 30 THEN
            RAISE EXCEPTION 'carrel: this seat has tried too many candidate numbers today; ask the proctor' USING ERRCODE = '53400';
          END IF;
          IF session_user::text ~ '^carrel_m_[0-9a-f]{16}$'
             AND (SELECT count(*) FROM carrel_candidate_tries t JOIN carrel_sessions s ON s.session = t.session
                   WHERE s.created_by = session_user::text AND t.at > clock_timestamp() - interval '1 day') >= 300 THEN
            RAISE EXCEPTION 'carrel: this machine has tried too many candidate numbers today; ask the proctor' USING ERRCODE = '53400';
          END IF;
          INSERT INTO carrel_candidate_tries (room, number, code_hash, session, token_hash)
            VALUES (p_room, lower(trim(p_number)), p_code, p_session, carrel_token_hash(p_token))
            RETURNING carrel_candidate_tries.id INTO id;
          RETURN id;
        END $$;

        CREATE OR REPLACE FUNCTION carrel_candidate(p_try bigint, p_seat text, p_session text, p_token text)
          RETURNS TABLE (outcome text, candidate text, name text, seat text, extra_time text, screen_reader boolean,
                         theme text, language text, seated_at text)
          LANGUAGE plpgsql SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
        DECLARE
          t record;
          r record;
          e jsonb;
        BEGIN
          -- As in version 6; a candidate is held for the session that failed five times only.
          UPDATE carrel_candidate_tries x SET answered = true
            WHERE x.id = p_try AND x.session = p_session AND x.token_hash = carrel_token_hash(p_token)
              AND NOT x.answered AND x.at < transaction_timestamp()
            RETURNING x.* INTO t;
          IF t.id IS NULL THEN
            RETURN QUERY SELECT 'no_match'::text, NULL::text, NULL::text, NULL::text, NULL::text, NULL::boolean, NULL::text, NULL::text, NULL::text;
            RETURN;
          END IF;
          IF carrel_candidate_held(t.room, t.number, t.session, t.id) THEN
            RETURN QUERY SELECT 'held'::text, t.number, NULL::text, NULL::text, NULL::text, NULL::boolean, NULL::text, NULL::text, NULL::text;
            RETURN;
          END IF;
          SELECT * INTO r FROM carrel_rooms WHERE room = t.room AND closed_at IS NULL;
          e := carrel_candidate_entry(t.room, t.number, t.code_hash);
          IF e IS NULL OR r.room IS NULL THEN
            RETURN QUERY SELECT 'no_match'::text, NULL::text, NULL::text, NULL::text, NULL::text, NULL::boolean, NULL::text, NULL::text, NULL::text;
            RETURN;
          END IF;
          IF (SELECT count(*) FROM carrel_candidate_claims c
                WHERE c.room = t.room AND lower(c.candidate) = t.number AND c.at > clock_timestamp() - interval '1 day') < 20 THEN
            INSERT INTO carrel_candidate_claims (session, room, candidate, token_hash)
              VALUES (t.session, t.room, e->>'candidate', t.token_hash)
              ON CONFLICT (session) DO NOTHING;
          END IF;
          RETURN QUERY SELECT 'found'::text, e->>'candidate', e->>'name', e->>'seat', e->>'extra_time',
                 CASE WHEN jsonb_typeof(e->'screen_reader') = 'boolean' THEN (e->>'screen_reader')::boolean END,
                 e->>'theme', e->>'language',
                 (SELECT s.seat FROM carrel_sessions s
                    WHERE s.room = t.room AND lower(s.candidate_number) = t.number
                      AND s.seat <> p_seat AND s.session <> t.session
                      AND (r.code_salt IS NULL
                           OR EXISTS (SELECT 1 FROM carrel_candidate_claims c
                                 WHERE c.session = s.session AND c.token_hash = s.hello_hash AND c.room = t.room
                                   AND lower(c.candidate) = t.number))
                      AND s.status IN ('not_started', 'active', 'review', 'ending', 'interrupted')
                      AND s.last_seen > now() - interval '2 minutes'
                    ORDER BY s.last_seen DESC LIMIT 1);
        END $$;

        REVOKE ALL ON FUNCTION carrel_sweep() FROM PUBLIC;
        REVOKE ALL ON FUNCTION carrel_seat_lock(text, text, text) FROM PUBLIC;
        REVOKE ALL ON FUNCTION carrel_seat_unlock(text) FROM PUBLIC;
        REVOKE ALL ON FUNCTION carrel_seat_refused(text, text, jsonb) FROM PUBLIC;
        REVOKE ALL ON FUNCTION carrel_candidate_held(text, text, text, bigint) FROM PUBLIC;
        DO $$
        DECLARE
          r record;
        BEGIN
          -- Every seat's role loses the refusal without a token and gains the lock and the
          -- refusal that ask for proof; every proctor's role sweeps and reads what was ended.
          FOR r IN SELECT DISTINCT grantee FROM information_schema.role_routine_grants
                   WHERE routine_name = 'carrel_publish' AND privilege_type = 'EXECUTE'
                     AND routine_schema = current_schema() AND grantee <> current_user LOOP
            EXECUTE format('REVOKE ALL ON FUNCTION carrel_seat_refused(text, jsonb) FROM %I', r.grantee);
            EXECUTE format('GRANT EXECUTE ON FUNCTION carrel_seat_lock(text, text, text), carrel_seat_unlock(text), '
              'carrel_seat_refused(text, text, jsonb) TO %I', r.grantee);
          END LOOP;
          FOR r IN SELECT DISTINCT grantee FROM information_schema.role_table_grants
                   WHERE table_name = 'carrel_marks' AND privilege_type = 'INSERT'
                     AND table_schema = current_schema() AND grantee <> current_user LOOP
            EXECUTE format('GRANT EXECUTE ON FUNCTION carrel_sweep() TO %I', r.grantee);
            EXECUTE format('GRANT SELECT ON carrel_terminations TO %I', r.grantee);
          END LOOP;
        END $$
        """

    /// What `carrel store init` grants the proctor's role of version 9.
    static let proctorSweepGrants = [
        "GRANT EXECUTE ON FUNCTION carrel_sweep() TO",
        "GRANT SELECT ON carrel_terminations TO",
    ]
}

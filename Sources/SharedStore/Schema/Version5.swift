extension SharedSchema {
    /// Version 5, a seat proves which session it is. The seat's role is known to students (its
    /// password sits in an account they use), so nothing may trust a session id a caller
    /// names: ids leak (a console on a screen, a journal left on a machine). Each session's
    /// row keeps the SHA-256 of a token only its seat holds (`token_hash`), set by the
    /// `carrel_hello` that makes the row; every seat call names its session *and* its token,
    /// and a call whose token does not match changes nothing, locks nothing and returns
    /// nothing. Once the proctor's start gives the session its key, the seat moves the row to
    /// a token derived from that key (`p_previous` names the one it replaces), so the token
    /// that may sit in a journal on disk no longer writes to it; the first token still reads
    /// the session's own marks (`hello_hash`).
    ///
    /// The seat's role no longer inserts into `carrel_records`: `carrel_publish` does, after
    /// the proof, within quotas kept on the session's own row — a session the proctor did not
    /// start (`carrel_admitted`) may keep 50 000 records and 32 MiB as stored (text and jsonb),
    /// one the proctor started 1 000 000 and 512 MiB — and a room takes at most 100 sessions
    /// the proctor did not start, plus two per roster line, a day (sessions of rooms without an
    /// open plan: 2 000 a day in all), counted by when and where the store made them.
    /// Nothing a seat's transaction can lock is another session's: its row, its records' keys
    /// and its applied commands are all its own. What was written before this version (rows
    /// without a token) can no longer be written to by a seat.
    static let version5ProvenSeats = """
        ALTER TABLE carrel_sessions
          ADD COLUMN token_hash text,
          ADD COLUMN hello_hash text,
          ADD COLUMN created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
          ADD COLUMN created_room text,
          ADD COLUMN records_count bigint NOT NULL DEFAULT 0,
          ADD COLUMN records_bytes bigint NOT NULL DEFAULT 0;
        CREATE INDEX carrel_sessions_created ON carrel_sessions (created_room, created_at) WHERE created_room IS NOT NULL;

        CREATE FUNCTION carrel_admitted(p_session text) RETURNS boolean
          LANGUAGE sql STABLE SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
          -- The proctor started this session (a start addressed to it): read, never written
          -- on the session's row, so the proctor's start waits for no lock a seat holds.
          SELECT EXISTS (SELECT 1 FROM carrel_commands c WHERE c.session = p_session AND c.action = 'start');
        $$;

        CREATE FUNCTION carrel_token_hash(p_token text) RETURNS text
          LANGUAGE sql IMMUTABLE SET search_path = @SCHEMA@, pg_temp AS $$
          -- A token of 32 to 100 characters as the store keeps it; anything else matches nothing.
          SELECT CASE WHEN length(p_token) BETWEEN 32 AND 100 THEN encode(sha256(convert_to(p_token, 'UTF8')), 'hex') END;
        $$;

        CREATE FUNCTION carrel_proven(p_session text, p_token text, p_previous text) RETURNS boolean
          LANGUAGE plpgsql SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
        DECLARE
          h text;
          mine text := carrel_token_hash(p_token);
        BEGIN
          -- Read without a lock: a caller that is not the session's learns nothing and waits
          -- for no one. The session's own seat, naming the token it replaces, moves the row to
          -- its new one (the only write, on its own row).
          IF mine IS NULL THEN RETURN false; END IF;
          SELECT token_hash INTO h FROM carrel_sessions WHERE session = p_session;
          IF h IS NULL THEN RETURN false; END IF;
          IF h = mine THEN RETURN true; END IF;
          IF carrel_token_hash(p_previous) = h THEN
            UPDATE carrel_sessions SET token_hash = mine WHERE session = p_session AND token_hash = h;
            RETURN true;
          END IF;
          RETURN false;
        END $$;

        CREATE FUNCTION carrel_room_has_place(p_room text) RETURNS boolean
          LANGUAGE sql STABLE SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
          -- Sessions the proctor did not start, made today (by the store's clock when the row
          -- was written, not when its caller's transaction began, in the room they were made
          -- for: nothing a seat sends or holds open changes either): at most 100 a room
          -- plus two per roster line, and 2 000 in all in rooms without an open plan.
          SELECT CASE WHEN r.room IS NOT NULL THEN
              (SELECT count(*) FROM carrel_sessions s WHERE s.created_room = p_room AND s.created_at > clock_timestamp() - interval '1 day'
                 AND NOT carrel_admitted(s.session))
                < 100 + 2 * CASE WHEN jsonb_typeof(r.roster) = 'array' THEN jsonb_array_length(r.roster) ELSE 0 END
            ELSE
              (SELECT count(*) FROM carrel_sessions s WHERE s.created_room IS NOT NULL AND s.created_at > clock_timestamp() - interval '1 day'
                 AND NOT carrel_admitted(s.session)
                 AND NOT EXISTS (SELECT 1 FROM carrel_rooms o WHERE o.room = s.created_room AND o.closed_at IS NULL)) < 2000
            END
          FROM (SELECT (SELECT room FROM carrel_rooms WHERE room = p_room AND closed_at IS NULL) AS room,
                       (SELECT roster FROM carrel_rooms WHERE room = p_room AND closed_at IS NULL) AS roster) r;
        $$;

        CREATE FUNCTION carrel_hello(p_session text, p_body jsonb, p_token text) RETURNS boolean
          LANGUAGE plpgsql SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
        BEGIN
          -- A new session's row, with the seat's token; an existing one only heard again, and
          -- only by its own seat (false: another's).
          IF carrel_token_hash(p_token) IS NULL OR octet_length(p_session) NOT BETWEEN 1 AND 200 THEN
            RAISE EXCEPTION 'carrel: a seat''s announcement needs its session and a token of 32 to 100 characters'
              USING ERRCODE = '22023';
          END IF;
          IF EXISTS (SELECT 1 FROM carrel_sessions WHERE session = p_session) THEN
            IF NOT carrel_proven(p_session, p_token, NULL) THEN RETURN false; END IF;
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

        CREATE FUNCTION carrel_publish(p_sessions text[], p_tokens text[], p_previous text[], p_seqs int8[], p_kinds text[],
                                       p_ats timestamptz[], p_bodies text[], p_macs text[])
          RETURNS TABLE (kept int8, refused text)
          LANGUAGE plpgsql SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
        DECLARE
          n integer := coalesce(array_length(p_sessions, 1), 0);
          u record;
          allowed text[] := '{}';
          why text;
          first_body text;
          kept_sessions text[];
          kept_records int8[];
          kept_bytes int8[];
        BEGIN
          -- A batch of records: those of each session its seat proved, within the session's
          -- quota, are kept (a record already there as sent is skipped); the others are not,
          -- and `refused` says why. `kept` is how many of the batch the store holds as sent
          -- (same text, same MAC), as carrel_seat_kept counted it. No error stops a seat's
          -- outbox behind a record the store will never take.
          IF n > 1000 OR n <> coalesce(array_length(p_tokens, 1), 0) OR n <> coalesce(array_length(p_previous, 1), 0)
             OR n <> coalesce(array_length(p_seqs, 1), 0) OR n <> coalesce(array_length(p_kinds, 1), 0)
             OR n <> coalesce(array_length(p_ats, 1), 0) OR n <> coalesce(array_length(p_bodies, 1), 0)
             OR n <> coalesce(array_length(p_macs, 1), 0) THEN
            RAISE EXCEPTION 'carrel: a batch is at most 1000 records, each given whole' USING ERRCODE = '22023';
          END IF;
          -- Bytes count twice: the store keeps a record's text as sent and as jsonb.
          FOR u IN SELECT x.s, min(x.t) AS t, min(x.p) AS p, count(*) AS records, 2 * sum(octet_length(x.b)) AS bytes
                   FROM unnest(p_sessions, p_tokens, p_previous, p_bodies) AS x(s, t, p, b) GROUP BY x.s LOOP
            -- A session no seat announced (a demo's, one published after the store lost its
            -- row) is made by its own first record, as carrel_hello makes it, within the quota.
            IF NOT EXISTS (SELECT 1 FROM carrel_sessions c WHERE c.session = u.s) THEN
              BEGIN
                SELECT x.b INTO first_body FROM unnest(p_sessions, p_kinds, p_bodies) AS x(s, k, b)
                  WHERE x.s = u.s AND x.k = 'session' LIMIT 1;
                IF first_body IS NOT NULL THEN
                  PERFORM carrel_hello(u.s, first_body::jsonb, u.t);
                END IF;
              EXCEPTION WHEN others THEN
                -- Not made (a room at its quota, a token of the wrong form): refused below.
                NULL;
              END;
            END IF;
            IF NOT carrel_proven(u.s, u.t, u.p) THEN
              why := 'this seat has not proven it holds session ' || left(u.s, 40);
            ELSIF NOT EXISTS (SELECT 1 FROM carrel_sessions c WHERE c.session = u.s
                                AND c.records_count + u.records <= CASE WHEN carrel_admitted(u.s) THEN 1000000 ELSE 50000 END
                                AND c.records_bytes + u.bytes <= CASE WHEN carrel_admitted(u.s) THEN 536870912 ELSE 33554432 END) THEN
              why := 'session ' || left(u.s, 40) || ' is at its quota of records in the store';
            ELSE
              allowed := allowed || u.s;
            END IF;
          END LOOP;
          WITH inserted AS (
              INSERT INTO carrel_records (session, seq, kind, at, body, body_text, mac)
                SELECT r.s, r.q, r.k, r.a, r.b::jsonb, r.b, nullif(r.m, '')
                FROM unnest(p_sessions, p_seqs, p_kinds, p_ats, p_bodies, p_macs) WITH ORDINALITY AS r(s, q, k, a, b, m, o)
                WHERE r.s = ANY(allowed)
                ORDER BY r.o
              ON CONFLICT DO NOTHING
              RETURNING carrel_records.session AS s, 2 * octet_length(carrel_records.body_text) AS bytes),
            per AS (SELECT i.s, count(*) AS records, coalesce(sum(i.bytes), 0) AS bytes FROM inserted i GROUP BY i.s)
          SELECT array_agg(per.s), array_agg(per.records), array_agg(per.bytes) INTO kept_sessions, kept_records, kept_bytes FROM per;
          FOR i IN 1 .. coalesce(array_length(kept_sessions, 1), 0) LOOP
            UPDATE carrel_sessions c SET records_count = c.records_count + kept_records[i], records_bytes = c.records_bytes + kept_bytes[i]
              WHERE c.session = kept_sessions[i];
          END LOOP;
          RETURN QUERY SELECT (SELECT count(*) FROM unnest(p_sessions, p_seqs, p_bodies, p_macs) AS x(s, q, b, m)
            WHERE EXISTS (SELECT 1 FROM carrel_records r WHERE r.session = x.s AND r.seq = x.q AND coalesce(r.mac, '') = x.m
                            AND r.body_text = x.b)), why;
        END $$;

        CREATE FUNCTION carrel_live(p_session text, p_token text, p_previous text, p_mac text, p_elapsed double precision)
          RETURNS boolean LANGUAGE plpgsql SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
        BEGIN
          -- As carrel_live(text, text, double precision), for the session's own seat only.
          IF NOT carrel_proven(p_session, p_token, p_previous) THEN RETURN false; END IF;
          PERFORM carrel_live(p_session, p_mac, p_elapsed);
          RETURN true;
        END $$;

        CREATE FUNCTION carrel_pulse(p_session text, p_token text, p_previous text, p_elapsed double precision)
          RETURNS boolean LANGUAGE plpgsql SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
        BEGIN
          IF NOT carrel_proven(p_session, p_token, p_previous) THEN RETURN false; END IF;
          PERFORM carrel_pulse(p_session, p_elapsed);
          RETURN true;
        END $$;

        CREATE FUNCTION carrel_seat_commands(p_session text, p_token text, p_previous text, p_after bigint, p_starts boolean)
          RETURNS TABLE (id bigint, envelope text, signature text)
          LANGUAGE plpgsql SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
        BEGIN
          -- The signed commands (p_starts: the starts, newest first) for the proving session's
          -- room and seat: those for the whole room or seat, and those for this session — never
          -- one addressed to another session.
          IF NOT carrel_proven(p_session, p_token, p_previous) THEN RETURN; END IF;
          RETURN QUERY
            SELECT c.id, c.envelope, c.signature FROM carrel_commands c, carrel_sessions s
            WHERE s.session = p_session AND c.room = s.room AND (c.seat IS NULL OR c.seat = s.seat)
              AND (c.session IS NULL OR c.session = p_session) AND c.id > p_after
              AND (c.action = 'start') = p_starts
            ORDER BY CASE WHEN p_starts THEN -c.id ELSE c.id END
            LIMIT CASE WHEN p_starts THEN 20 ELSE 200 END;
        END $$;

        CREATE FUNCTION carrel_command_refused(p_session text, p_token text, p_previous text, p_detail text) RETURNS boolean
          LANGUAGE plpgsql SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
        BEGIN
          IF NOT carrel_proven(p_session, p_token, p_previous) THEN RETURN false; END IF;
          PERFORM carrel_command_refused(p_session, p_detail);
          RETURN true;
        END $$;

        CREATE FUNCTION carrel_seat_marks(p_sessions text[], p_tokens text[], p_after bigint)
          RETURNS TABLE (id bigint, session text, item text, points double precision, comment text, at_epoch double precision)
          LANGUAGE sql STABLE SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
          -- The marks of the sessions whose token (the first, or the one they publish with) the
          -- caller gives: no one reads another's.
          SELECT m.id, m.session, m.item, m.points, m.comment, extract(epoch FROM m.at)::double precision
            FROM carrel_marks m
            JOIN unnest(p_sessions[1:1000], p_tokens[1:1000]) AS x(s, t) ON x.s = m.session
            JOIN carrel_sessions s ON s.session = m.session
              AND carrel_token_hash(x.t) IN (s.token_hash, s.hello_hash)
            WHERE m.id > p_after ORDER BY m.id LIMIT 500;
        $$;

        CREATE OR REPLACE FUNCTION carrel_seat_refused(p_session text, p_body jsonb)
          RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
        BEGIN
          -- As in version 2, within the room's quota of sessions the proctor did not start.
          IF NOT carrel_room_has_place(left(coalesce(p_body->>'room', ''), 200)) THEN RETURN; END IF;
        \(seatRefusedRow)
          UPDATE carrel_sessions SET created_room = left(coalesce(p_body->>'room', ''), 200)
            WHERE session = left(p_session, 200) AND created_room IS NULL AND token_hash IS NULL;
        END $$;

        REVOKE ALL ON FUNCTION carrel_token_hash(text) FROM PUBLIC;
        REVOKE ALL ON FUNCTION carrel_proven(text, text, text) FROM PUBLIC;
        REVOKE ALL ON FUNCTION carrel_room_has_place(text) FROM PUBLIC;
        REVOKE ALL ON FUNCTION carrel_hello(text, jsonb, text) FROM PUBLIC;
        REVOKE ALL ON FUNCTION carrel_publish(text[], text[], text[], int8[], text[], timestamptz[], text[], text[]) FROM PUBLIC;
        REVOKE ALL ON FUNCTION carrel_live(text, text, text, text, double precision) FROM PUBLIC;
        REVOKE ALL ON FUNCTION carrel_pulse(text, text, text, double precision) FROM PUBLIC;
        REVOKE ALL ON FUNCTION carrel_seat_commands(text, text, text, bigint, boolean) FROM PUBLIC;
        REVOKE ALL ON FUNCTION carrel_command_refused(text, text, text, text) FROM PUBLIC;
        REVOKE ALL ON FUNCTION carrel_seat_marks(text[], text[], bigint) FROM PUBLIC;
        REVOKE ALL ON FUNCTION carrel_seat_refused(text, jsonb) FROM PUBLIC;
        REVOKE ALL ON FUNCTION carrel_admitted(text) FROM PUBLIC;
        DO $$
        DECLARE
          r record;
        BEGIN
          -- Every role a seat used loses what trusted a session id it named, and gains the calls
          -- that ask for proof.
          FOR r IN SELECT DISTINCT grantee FROM information_schema.role_routine_grants
                   WHERE routine_name IN ('carrel_seat_kept', 'carrel_hello') AND privilege_type = 'EXECUTE'
                     AND routine_schema = current_schema() AND grantee <> current_user LOOP
            EXECUTE format('REVOKE ALL ON carrel_records FROM %I', r.grantee);
            EXECUTE format('REVOKE ALL ON FUNCTION carrel_hello(text, jsonb), carrel_pulse(text, double precision), '
              'carrel_live(text, text, double precision), carrel_seat_kept(text[], int8[], text[], text[]), '
              'carrel_seat_commands(text, text, bigint), carrel_seat_signed_commands(text, text, bigint), '
              'carrel_seat_starts(text, text, bigint), carrel_command_refused(text, text), carrel_seat_marks(text[], bigint) FROM %I',
              r.grantee);
            EXECUTE format('GRANT EXECUTE ON FUNCTION \(version5SeatFunctions) TO %I', r.grantee);
          END LOOP;
        END $$
        """

    /// The functions a seat's role called in version 5 (its migration grants them).
    static let version5SeatFunctions = """
        carrel_schema_version(), carrel_room_plan(text, text), carrel_roster_candidate(text, text, text), \
        carrel_seat_refused(text, jsonb), carrel_hello(text, jsonb, text), \
        carrel_publish(text[], text[], text[], int8[], text[], timestamptz[], text[], text[]), \
        carrel_live(text, text, text, text, double precision), carrel_pulse(text, text, text, double precision), \
        carrel_seat_commands(text, text, text, bigint, boolean), carrel_command_refused(text, text, text, text), \
        carrel_seat_marks(text[], text[], bigint)
        """

    /// Every function a seat's role calls now, as `GRANT EXECUTE ON FUNCTION` lists them
    /// (`carrel store init` grants them).
    static let seatFunctions = version5SeatFunctions.replacingOccurrences(
        of: "carrel_roster_candidate(text, text, text)",
        with: "carrel_room_codes(text), carrel_candidate_try(text, text, text, text, text), carrel_candidate(bigint, text, text, text)")
        .replacingOccurrences(of: "carrel_seat_refused(text, jsonb)",
                              with: "carrel_seat_refused(text, text, jsonb), carrel_seat_lock(text, text, text), carrel_seat_unlock(text), "
                                  + "carrel_seat_records(text, text, bigint), carrel_session_fate(text, text), carrel_candidate_elsewhere(text, text)")
}

extension SharedSchema {
    /// Version 10, a candidate moves to a spare seat, and a seat that will not come back is
    /// ended from the store.
    ///
    /// - A proctor's start that carries `move_from` (the session that moves) and `move_token`
    ///   (the SHA-256 of the store token the moved session's new key derives) moves that
    ///   session to the waiting spare seat the start is addressed to: the session takes the
    ///   spare's seat, host and key; its old token no longer proves anything (it is kept in
    ///   `fenced_hashes`, with which the old seat can still ask what became of it); the move
    ///   is kept in `moves`; the spare's own waiting session is `merged` into it; a
    ///   connection still holding the moved session's lock is ended.
    /// - A proctor's `lost` ends a session whose seat will not come back: `ended`, reason
    ///   `seat_lost`, its token fenced the same way.
    /// - Records sent under a merged request are dropped (`carrel_records_merged`).
    /// - A proctor's role may call `carrel_publish`: `carrel proctor lost` writes the closing
    ///   records of the lost session as that session (the token its key derives proves it).
    /// - `carrel_seat_records` gives a seat that proves a session that session's records (a
    ///   spare rebuilds the session from them); `carrel_session_fate` tells a seat whose token
    ///   was fenced where its session went ("moved S1") or that it was lost.
    static let version10Moves = """
        ALTER TABLE carrel_sessions
          ADD COLUMN moves jsonb NOT NULL DEFAULT '[]'::jsonb,
          ADD COLUMN merged_into text,
          ADD COLUMN fenced_hashes text[] NOT NULL DEFAULT '{}',
          ADD COLUMN fate text;
        ALTER TABLE carrel_commands
          ADD COLUMN move_from text CHECK (move_from IS NULL OR octet_length(move_from) <= 200),
          ADD COLUMN move_token text CHECK (move_token IS NULL OR move_token ~ '^[0-9a-f]{64}$');
        CREATE INDEX carrel_commands_move_from ON carrel_commands (move_from) WHERE move_from IS NOT NULL;
        ALTER TABLE carrel_commands DROP CONSTRAINT IF EXISTS carrel_commands_action_check;
        ALTER TABLE carrel_commands ADD CONSTRAINT carrel_commands_action_check
          CHECK (action IN ('start', 'pause', 'resume', 'time', 'message', 'end', 'acknowledge', 'lost'));

        CREATE FUNCTION carrel_end_lock_holders(p_session text) RETURNS void
          LANGUAGE plpgsql SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
        DECLARE
          k bigint := hashtextextended(p_session, 0);
          b record;
        BEGIN
          -- Connections still holding the session's lock (a seat cut off, a half-open TCP
          -- connection) are ended, so that the seat that continues it can take the lock.
          FOR b IN SELECT l.pid FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
                     AND ((l.classid::bigint << 32) | l.objid::bigint) = k AND l.pid <> pg_backend_pid() LOOP
            BEGIN
              PERFORM pg_terminate_backend(b.pid);
            EXCEPTION WHEN others THEN
              -- An owner without pg_signal_backend: that connection stays until it ends by
              -- itself; its token no longer proves anything, so it writes nothing more.
              NULL;
            END;
          END LOOP;
        END $$;

        CREATE FUNCTION carrel_command_moves() RETURNS trigger
          LANGUAGE plpgsql SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
        DECLARE
          y carrel_sessions%ROWTYPE;
          x carrel_sessions%ROWTYPE;
        BEGIN
          IF NEW.action = 'start' AND NEW.move_from IS NOT NULL THEN
            SELECT * INTO y FROM carrel_sessions WHERE session = NEW.move_from FOR UPDATE;
            SELECT * INTO x FROM carrel_sessions WHERE session = NEW.session FOR UPDATE;
            IF y.session IS NULL OR y.room <> NEW.room THEN
              RAISE EXCEPTION 'carrel: session % is not a session of room %', left(NEW.move_from, 40), NEW.room USING ERRCODE = '22023';
            END IF;
            IF y.merged_into IS NOT NULL OR y.status IN ('ended', 'abandoned', 'not_started', 'wrong_test', 'candidate_twice', 'merged') THEN
              RAISE EXCEPTION 'carrel: session % at seat % is % and cannot move', left(y.session, 8), y.seat, y.status USING ERRCODE = '55000';
            END IF;
            IF x.session IS NULL OR x.room <> NEW.room OR x.status <> 'not_started' OR x.session = y.session THEN
              RAISE EXCEPTION 'carrel: no seat waits to take session % (its session must be waiting in room %)', left(y.session, 8), NEW.room
                USING ERRCODE = '55000';
            END IF;
            IF NEW.move_token IS NULL THEN
              RAISE EXCEPTION 'carrel: a move needs the moved session''s new token' USING ERRCODE = '22023';
            END IF;
            UPDATE carrel_sessions SET
                fenced_hashes = CASE WHEN token_hash IS NULL THEN fenced_hashes ELSE fenced_hashes || token_hash END,
                token_hash = NEW.move_token, seat = x.seat, host = x.host, seat_key = x.seat_key,
                moves = moves || jsonb_build_array(jsonb_build_object('from', y.seat, 'to', x.seat, 'at', now(),
                  'by', NEW.issued_by, 'command', NEW.id, 'request', x.session)),
                fate = 'moved ' || x.seat,
                status = CASE WHEN status IN ('active', 'review', 'ending') THEN 'interrupted' ELSE status END,
                live_mac = NULL, live_at = NULL
              WHERE session = y.session;
            -- The spare's request is done with (its token still reads the move it was sent;
            -- carrel_records_merged keeps any record of it out).
            UPDATE carrel_sessions SET status = 'merged', merged_into = y.session WHERE session = x.session;
            PERFORM carrel_end_lock_holders(y.session);
          ELSIF NEW.action = 'lost' THEN
            SELECT * INTO y FROM carrel_sessions WHERE session = NEW.session FOR UPDATE;
            IF y.session IS NULL OR y.room <> NEW.room THEN
              RAISE EXCEPTION 'carrel: session % is not a session of room %', left(coalesce(NEW.session, ''), 40), NEW.room USING ERRCODE = '22023';
            END IF;
            IF y.merged_into IS NOT NULL OR y.status IN ('ended', 'abandoned', 'not_started', 'wrong_test', 'candidate_twice', 'merged') THEN
              RAISE EXCEPTION 'carrel: session % at seat % is % and cannot be ended as lost', left(y.session, 8), y.seat, y.status USING ERRCODE = '55000';
            END IF;
            UPDATE carrel_sessions SET
                fenced_hashes = CASE WHEN token_hash IS NULL THEN fenced_hashes ELSE fenced_hashes || token_hash END,
                token_hash = NULL, status = 'ended', end_reason = 'seat_lost', ended_at = now(), fate = 'lost',
                live_mac = NULL, live_at = NULL
              WHERE session = y.session;
            PERFORM carrel_end_lock_holders(y.session);
          END IF;
          RETURN NULL;
        END $$;
        CREATE TRIGGER carrel_commands_moves AFTER INSERT ON carrel_commands FOR EACH ROW
          WHEN (NEW.move_from IS NOT NULL OR NEW.action = 'lost') EXECUTE FUNCTION carrel_command_moves();

        CREATE FUNCTION carrel_records_merged() RETURNS trigger
          LANGUAGE plpgsql SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
        BEGIN
          -- A spare's request that a move took in is no session of its own: no status or result
          -- sent under it brings it back as a second session of the candidate.
          IF EXISTS (SELECT 1 FROM carrel_sessions s WHERE s.session = NEW.session AND s.status = 'merged') THEN
            RETURN NULL;
          END IF;
          RETURN NEW;
        END $$;
        CREATE TRIGGER carrel_records_merged BEFORE INSERT ON carrel_records FOR EACH ROW EXECUTE FUNCTION carrel_records_merged();
        REVOKE ALL ON FUNCTION carrel_records_merged() FROM PUBLIC;

        CREATE FUNCTION carrel_seat_records(p_session text, p_token text, p_after bigint)
          RETURNS TABLE (seq bigint, kind text, at_epoch double precision, body text, mac text)
          LANGUAGE plpgsql SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
        BEGIN
          -- A session's own records, to the seat that proves it (a spare that continues it).
          IF NOT carrel_proven(p_session, p_token, NULL) THEN RETURN; END IF;
          RETURN QUERY SELECT r.seq, r.kind, extract(epoch FROM r.at)::double precision, r.body_text, r.mac
            FROM carrel_records r WHERE r.session = p_session AND r.seq > p_after ORDER BY r.seq, r.mac LIMIT 2000;
        END $$;

        CREATE FUNCTION carrel_session_fate(p_session text, p_token text) RETURNS text
          LANGUAGE sql STABLE SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
          -- What became of a session, to a seat that held it: its first token, or one fenced.
          SELECT s.fate FROM carrel_sessions s
            WHERE s.session = p_session AND carrel_token_hash(p_token) IS NOT NULL
              AND (carrel_token_hash(p_token) = s.hello_hash OR carrel_token_hash(p_token) = ANY(s.fenced_hashes));
        $$;

        CREATE FUNCTION carrel_candidate_elsewhere(p_session text, p_token text) RETURNS text
          LANGUAGE sql STABLE SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
          -- The seat where the candidate this session found on the roster has a session the
          -- proctor started and that has not ended (a machine that died long ago included):
          -- the seat offers to ask the proctor to move it here.
          SELECT s.seat FROM carrel_candidate_claims c
            JOIN carrel_sessions s ON s.room = c.room AND lower(s.candidate_number) = lower(c.candidate)
            WHERE c.session = p_session AND c.token_hash = carrel_token_hash(p_token) AND carrel_token_hash(p_token) IS NOT NULL
              AND s.session <> p_session AND s.merged_into IS NULL
              AND s.status IN ('active', 'review', 'ending', 'interrupted')
              AND EXISTS (SELECT 1 FROM carrel_commands k WHERE k.session = s.session AND k.action = 'start')
            ORDER BY s.last_seen DESC LIMIT 1;
        $$;

        REVOKE ALL ON FUNCTION carrel_candidate_elsewhere(text, text) FROM PUBLIC;
        REVOKE ALL ON FUNCTION carrel_end_lock_holders(text) FROM PUBLIC;
        REVOKE ALL ON FUNCTION carrel_command_moves() FROM PUBLIC;
        REVOKE ALL ON FUNCTION carrel_seat_records(text, text, bigint) FROM PUBLIC;
        REVOKE ALL ON FUNCTION carrel_session_fate(text, text) FROM PUBLIC;
        DO $$
        DECLARE
          r record;
        BEGIN
          FOR r IN SELECT DISTINCT grantee FROM information_schema.role_routine_grants
                   WHERE routine_name = 'carrel_publish' AND privilege_type = 'EXECUTE'
                     AND routine_schema = current_schema() AND grantee <> current_user LOOP
            EXECUTE format('GRANT EXECUTE ON FUNCTION carrel_seat_records(text, text, bigint), carrel_session_fate(text, text), '
                           'carrel_candidate_elsewhere(text, text) TO %I',
                           r.grantee);
          END LOOP;
          -- Every proctor's role writes the closing records of a seat that will not come back,
          -- as that session (with the token its key derives, which only the passphrase gives).
          FOR r IN SELECT DISTINCT grantee FROM information_schema.role_table_grants
                   WHERE table_name = 'carrel_marks' AND privilege_type = 'INSERT'
                     AND table_schema = current_schema() AND grantee <> current_user LOOP
            EXECUTE format('GRANT EXECUTE ON FUNCTION carrel_publish(text[], text[], text[], int8[], text[], timestamptz[], text[], text[]) TO %I',
                           r.grantee);
          END LOOP;
        END $$
        """

    /// What `carrel store init` grants the proctor's role of version 10.
    static let proctorLostGrants = [
        "GRANT EXECUTE ON FUNCTION carrel_publish(text[], text[], text[], int8[], text[], timestamptz[], text[], text[]) TO",
    ]
}

extension SharedSchema {
    /// Version 6, candidates prove who they are. A roster may give each candidate a code; the
    /// room keeps a salt (`code_salt`) and each roster line the code's slow hash
    /// (`CandidateCode.hash`, made by the proctor's `room open`). A seat looks a candidate up
    /// in two calls, each its own transaction: `carrel_candidate_try` records the number and
    /// the code's hash it was given and answers nothing; `carrel_candidate` answers a try made
    /// in an earlier, committed transaction, once, to the session that made it. So every try
    /// counts: a caller that rolls its transaction back has no try to ask about. The answer
    /// names the candidate only for the right number and code (`found`); otherwise `no_match`,
    /// the same for a number not on the roster and a wrong code; and a number with five failed
    /// tries since the room opened or the proctor's last release (`carrel_candidate_releases`)
    /// is `held`, on the roster or not. A room takes at most 100 000 tries a day. Every time
    /// that counts is the store's clock when the row is written (`clock_timestamp`), never the
    /// start of the caller's transaction, which a caller could hold open from before the room
    /// opened or the proctor's release. A roster
    /// without codes answers by number, as before, and the room's identities are unchecked.
    ///
    /// A lookup that finds the candidate notes the session and token the seat will announce
    /// (`carrel_candidate_claims`). With codes, a candidate is "seated elsewhere" only at a
    /// session that announced itself with the token of such a claim: announcing a candidate's
    /// number, even at a seat the proctor started, squats nobody. Without codes it is as before
    /// (any seat that announced the number).
    static let version6CandidateCodes = """
        ALTER TABLE carrel_rooms ADD COLUMN code_salt text CHECK (code_salt IS NULL OR octet_length(code_salt) <= 100);
        CREATE TABLE carrel_candidate_tries (
          id bigserial PRIMARY KEY,
          room text NOT NULL,
          number text NOT NULL,
          code_hash text,
          session text NOT NULL,
          token_hash text NOT NULL,
          at timestamptz NOT NULL DEFAULT clock_timestamp(),
          answered boolean NOT NULL DEFAULT false
        );
        CREATE INDEX carrel_candidate_tries_number ON carrel_candidate_tries (room, number, at);
        CREATE INDEX carrel_candidate_tries_day ON carrel_candidate_tries (room, at);
        CREATE TABLE carrel_candidate_releases (
          room text NOT NULL,
          candidate text NOT NULL,
          released_by text NOT NULL DEFAULT current_user,
          at timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX carrel_candidate_releases_key ON carrel_candidate_releases (room, lower(candidate), at);
        CREATE TABLE carrel_candidate_claims (
          session text PRIMARY KEY CHECK (octet_length(session) <= 200),
          room text NOT NULL,
          candidate text NOT NULL,
          token_hash text NOT NULL,
          at timestamptz NOT NULL DEFAULT clock_timestamp()
        );
        CREATE INDEX carrel_candidate_claims_candidate ON carrel_candidate_claims (room, lower(candidate), at);

        CREATE FUNCTION carrel_candidate_entry(p_room text, p_number text, p_code text) RETURNS jsonb
          LANGUAGE sql STABLE SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
          -- The open room's roster line for this number and code (any code without codes).
          SELECT x FROM carrel_rooms r, jsonb_array_elements(r.roster) x
            WHERE r.room = p_room AND r.closed_at IS NULL AND lower(x->>'candidate') = p_number
              AND (r.code_salt IS NULL OR x->>'code_hash' = p_code)
            LIMIT 1;
        $$;

        CREATE FUNCTION carrel_candidate_held(p_room text, p_number text, p_before bigint) RETURNS boolean
          LANGUAGE sql STABLE SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
          -- Five failed tries of this number (before try p_before) since the room opened or the
          -- proctor's last release of it.
          SELECT count(*) >= 5 FROM carrel_candidate_tries t, carrel_rooms r
            WHERE r.room = p_room AND t.room = p_room AND t.number = p_number AND t.id < p_before
              AND t.at > r.opened_at
              AND t.at > coalesce((SELECT max(x.at) FROM carrel_candidate_releases x
                                   WHERE x.room = p_room AND lower(x.candidate) = p_number), '-infinity')
              AND carrel_candidate_entry(p_room, t.number, t.code_hash) IS NULL;
        $$;

        CREATE FUNCTION carrel_room_codes(p_room text) RETURNS text
          LANGUAGE sql STABLE SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
          -- The salt a seat hashes a typed code with; null when the room's roster has no codes.
          SELECT code_salt FROM carrel_rooms WHERE room = p_room AND closed_at IS NULL;
        $$;

        CREATE FUNCTION carrel_candidate_try(p_room text, p_session text, p_token text, p_number text, p_code text)
          RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
        DECLARE
          id bigint;
        BEGIN
          -- A try, recorded and not answered: `carrel_candidate` answers it from another
          -- transaction.
          IF carrel_token_hash(p_token) IS NULL OR octet_length(p_session) NOT BETWEEN 1 AND 200
             OR octet_length(p_number) NOT BETWEEN 1 AND 64 OR octet_length(p_code) > 100 THEN
            RAISE EXCEPTION 'carrel: a try needs a session, a token, a number of at most 64 bytes' USING ERRCODE = '22023';
          END IF;
          IF NOT EXISTS (SELECT 1 FROM carrel_rooms WHERE room = p_room AND closed_at IS NULL) THEN
            RAISE EXCEPTION 'carrel: room % has no open plan', left(p_room, 200) USING ERRCODE = '22023';
          END IF;
          IF (SELECT count(*) FROM carrel_candidate_tries WHERE room = p_room AND at > clock_timestamp() - interval '1 day') >= 100000 THEN
            RAISE EXCEPTION 'carrel: room % has had too many tries at candidate numbers today; ask the proctor',
              left(p_room, 200) USING ERRCODE = '53400';
          END IF;
          INSERT INTO carrel_candidate_tries (room, number, code_hash, session, token_hash)
            VALUES (p_room, lower(trim(p_number)), p_code, p_session, carrel_token_hash(p_token))
            RETURNING carrel_candidate_tries.id INTO id;
          RETURN id;
        END $$;

        CREATE FUNCTION carrel_candidate(p_try bigint, p_seat text, p_session text, p_token text)
          RETURNS TABLE (outcome text, candidate text, name text, seat text, extra_time text, screen_reader boolean,
                         theme text, language text, seated_at text)
          LANGUAGE plpgsql SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
        DECLARE
          t record;
          r record;
          e jsonb;
        BEGIN
          -- The answer to one committed try of this session, once: `found`, `no_match` or `held`.
          UPDATE carrel_candidate_tries x SET answered = true
            WHERE x.id = p_try AND x.session = p_session AND x.token_hash = carrel_token_hash(p_token)
              AND NOT x.answered AND x.at < transaction_timestamp()
            RETURNING x.* INTO t;
          IF t.id IS NULL THEN
            RETURN QUERY SELECT 'no_match'::text, NULL::text, NULL::text, NULL::text, NULL::text, NULL::boolean, NULL::text, NULL::text, NULL::text;
            RETURN;
          END IF;
          IF carrel_candidate_held(t.room, t.number, t.id) THEN
            RETURN QUERY SELECT 'held'::text, t.number, NULL::text, NULL::text, NULL::text, NULL::boolean, NULL::text, NULL::text, NULL::text;
            RETURN;
          END IF;
          SELECT * INTO r FROM carrel_rooms WHERE room = t.room AND closed_at IS NULL;
          e := carrel_candidate_entry(t.room, t.number, t.code_hash);
          IF e IS NULL OR r.room IS NULL THEN
            RETURN QUERY SELECT 'no_match'::text, NULL::text, NULL::text, NULL::text, NULL::text, NULL::boolean, NULL::text, NULL::text, NULL::text;
            RETURN;
          END IF;
          -- At most 20 claims a candidate a day: a roster without codes cannot fill the store.
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

        REVOKE ALL ON FUNCTION carrel_candidate_entry(text, text, text) FROM PUBLIC;
        REVOKE ALL ON FUNCTION carrel_candidate_held(text, text, bigint) FROM PUBLIC;
        REVOKE ALL ON FUNCTION carrel_room_codes(text) FROM PUBLIC;
        REVOKE ALL ON FUNCTION carrel_candidate_try(text, text, text, text, text) FROM PUBLIC;
        REVOKE ALL ON FUNCTION carrel_candidate(bigint, text, text, text) FROM PUBLIC;
        DO $$
        DECLARE
          r record;
        BEGIN
          -- Every seat's role loses the lookup by number alone, and gains the two calls that
          -- count each try; every proctor's role may release a held candidate.
          FOR r IN SELECT DISTINCT grantee FROM information_schema.role_routine_grants
                   WHERE routine_name = 'carrel_publish' AND privilege_type = 'EXECUTE'
                     AND routine_schema = current_schema() AND grantee <> current_user LOOP
            EXECUTE format('REVOKE ALL ON FUNCTION carrel_roster_candidate(text, text, text) FROM %I', r.grantee);
            EXECUTE format('GRANT EXECUTE ON FUNCTION carrel_room_codes(text), '
              'carrel_candidate_try(text, text, text, text, text), carrel_candidate(bigint, text, text, text) TO %I', r.grantee);
          END LOOP;
          FOR r IN SELECT DISTINCT grantee FROM information_schema.role_table_grants
                   WHERE table_name = 'carrel_marks' AND privilege_type = 'INSERT'
                     AND table_schema = current_schema() AND grantee <> current_user LOOP
            EXECUTE format('GRANT SELECT, INSERT ON carrel_candidate_releases TO %I', r.grantee);
            EXECUTE format('GRANT SELECT ON carrel_candidate_tries, carrel_candidate_claims TO %I', r.grantee);
          END LOOP;
        END $$
        """
}

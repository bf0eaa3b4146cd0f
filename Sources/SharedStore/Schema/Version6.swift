extension SharedSchema {
    /// Version 6, candidates prove who they are. A roster may give each candidate a code; the
    /// room keeps a salt (`code_salt`) and each roster line the code's slow hash
    /// (`CandidateCode.hash`, made by the proctor's `room open`). `carrel_candidate` answers a
    /// seat's lookup with the candidate's name only for the right number *and* code; a wrong
    /// code counts against that candidate (one row per try, appended: nothing a caller holds
    /// delays another's lookup), and after five since the room opened or the proctor's last
    /// release (`carrel_candidate_releases`) the candidate is held for the proctor. A number
    /// not on the roster and a wrong code get the same answer, so the roster cannot be listed
    /// by number. A roster without codes answers by number, as before, and the console says
    /// the room's identities are unchecked.
    ///
    /// A lookup that finds the candidate notes the session and token the seat will announce
    /// (`carrel_candidate_claims`). With codes, a candidate is "seated elsewhere" only at a
    /// session the proctor started or one that announced itself with the token of such a
    /// claim: announcing a candidate's number alone squats nobody. Without codes it is as
    /// before (any seat that announced the number), and the room's identities are unchecked.
    static let version6CandidateCodes = """
        ALTER TABLE carrel_rooms ADD COLUMN code_salt text CHECK (code_salt IS NULL OR octet_length(code_salt) <= 100);
        CREATE TABLE carrel_candidate_failures (
          room text NOT NULL,
          candidate text NOT NULL,
          at timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX carrel_candidate_failures_key ON carrel_candidate_failures (room, lower(candidate), at);
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
          at timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX carrel_candidate_claims_candidate ON carrel_candidate_claims (room, lower(candidate), at);

        CREATE FUNCTION carrel_candidate_held(p_room text, p_candidate text) RETURNS boolean
          LANGUAGE sql STABLE SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
          -- Five wrong codes since the room opened or the proctor's last release.
          SELECT count(*) >= 5 FROM carrel_candidate_failures f, carrel_rooms r
            WHERE r.room = p_room AND f.room = p_room AND lower(f.candidate) = lower(p_candidate)
              AND f.at > r.opened_at
              AND f.at > coalesce((SELECT max(x.at) FROM carrel_candidate_releases x
                                   WHERE x.room = p_room AND lower(x.candidate) = lower(p_candidate)), '-infinity');
        $$;

        CREATE FUNCTION carrel_room_codes(p_room text) RETURNS text
          LANGUAGE sql STABLE SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
          -- The salt a seat hashes a typed code with; null when the room's roster has no codes.
          SELECT code_salt FROM carrel_rooms WHERE room = p_room AND closed_at IS NULL;
        $$;

        CREATE FUNCTION carrel_candidate(p_room text, p_seat text, p_session text, p_token text, p_number text, p_code text)
          RETURNS TABLE (outcome text, candidate text, name text, seat text, extra_time text, screen_reader boolean,
                         theme text, language text, seated_at text)
          LANGUAGE plpgsql SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
        DECLARE
          r record;
          e jsonb;
        BEGIN
          -- One candidate, by number (and code when the roster has codes): `found`, `no_match`
          -- (not on the roster, or a wrong code: the same answer) or `held`.
          SELECT * INTO r FROM carrel_rooms WHERE room = p_room AND closed_at IS NULL;
          IF NOT FOUND OR octet_length(p_number) > 64 OR carrel_token_hash(p_token) IS NULL THEN
            RETURN QUERY SELECT 'no_match'::text, NULL::text, NULL::text, NULL::text, NULL::text, NULL::boolean, NULL::text, NULL::text, NULL::text;
            RETURN;
          END IF;
          SELECT x INTO e FROM jsonb_array_elements(r.roster) x WHERE lower(x->>'candidate') = lower(p_number) LIMIT 1;
          IF e IS NOT NULL AND r.code_salt IS NOT NULL THEN
            IF carrel_candidate_held(p_room, e->>'candidate') THEN
              RETURN QUERY SELECT 'held'::text, e->>'candidate', NULL::text, NULL::text, NULL::text, NULL::boolean, NULL::text, NULL::text, NULL::text;
              RETURN;
            END IF;
            IF p_code IS NULL OR e->>'code_hash' IS NULL OR e->>'code_hash' <> p_code THEN
              INSERT INTO carrel_candidate_failures (room, candidate) VALUES (p_room, e->>'candidate');
              e := NULL;
            END IF;
          END IF;
          IF e IS NULL THEN
            RETURN QUERY SELECT 'no_match'::text, NULL::text, NULL::text, NULL::text, NULL::text, NULL::boolean, NULL::text, NULL::text, NULL::text;
            RETURN;
          END IF;
          -- At most 20 claims a candidate a day: a roster without codes cannot fill the store.
          IF (SELECT count(*) FROM carrel_candidate_claims c
                WHERE c.room = p_room AND lower(c.candidate) = lower(e->>'candidate') AND c.at > now() - interval '1 day') < 20 THEN
            INSERT INTO carrel_candidate_claims (session, room, candidate, token_hash)
              VALUES (left(p_session, 200), p_room, e->>'candidate', carrel_token_hash(p_token))
              ON CONFLICT (session) DO NOTHING;
          END IF;
          RETURN QUERY SELECT 'found'::text, e->>'candidate', e->>'name', e->>'seat', e->>'extra_time',
                 CASE WHEN jsonb_typeof(e->'screen_reader') = 'boolean' THEN (e->>'screen_reader')::boolean END,
                 e->>'theme', e->>'language',
                 (SELECT s.seat FROM carrel_sessions s
                    WHERE s.room = p_room AND lower(s.candidate_number) = lower(e->>'candidate')
                      AND (carrel_admitted(s.session) OR r.code_salt IS NULL
                           OR (EXISTS (SELECT 1 FROM carrel_candidate_claims c
                                 WHERE c.session = s.session AND c.token_hash = s.hello_hash AND c.room = p_room
                                   AND lower(c.candidate) = lower(e->>'candidate'))))
                      AND s.seat <> p_seat AND s.session <> p_session
                      AND s.status IN ('not_started', 'active', 'review', 'ending', 'interrupted')
                      AND s.last_seen > now() - interval '2 minutes'
                    ORDER BY s.last_seen DESC LIMIT 1);
        END $$;

        REVOKE ALL ON FUNCTION carrel_candidate_held(text, text) FROM PUBLIC;
        REVOKE ALL ON FUNCTION carrel_room_codes(text) FROM PUBLIC;
        REVOKE ALL ON FUNCTION carrel_candidate(text, text, text, text, text, text) FROM PUBLIC;
        DO $$
        DECLARE
          r record;
        BEGIN
          -- Every seat's role loses the lookup by number alone, and gains the one that asks for
          -- the code; every proctor's role may release a held candidate.
          FOR r IN SELECT DISTINCT grantee FROM information_schema.role_routine_grants
                   WHERE routine_name = 'carrel_publish' AND privilege_type = 'EXECUTE'
                     AND routine_schema = current_schema() AND grantee <> current_user LOOP
            EXECUTE format('REVOKE ALL ON FUNCTION carrel_roster_candidate(text, text, text) FROM %I', r.grantee);
            EXECUTE format('GRANT EXECUTE ON FUNCTION carrel_room_codes(text), '
              'carrel_candidate(text, text, text, text, text, text) TO %I', r.grantee);
          END LOOP;
          FOR r IN SELECT DISTINCT grantee FROM information_schema.role_table_grants
                   WHERE table_name = 'carrel_marks' AND privilege_type = 'INSERT'
                     AND table_schema = current_schema() AND grantee <> current_user LOOP
            EXECUTE format('GRANT SELECT, INSERT ON carrel_candidate_releases TO %I', r.grantee);
            EXECUTE format('GRANT SELECT ON carrel_candidate_failures, carrel_candidate_claims TO %I', r.grantee);
          END LOOP;
        END $$
        """
}

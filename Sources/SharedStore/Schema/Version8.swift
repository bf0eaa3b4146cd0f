extension SharedSchema {
    /// Version 8, enrolled machines log in as themselves. The shared seat role's password is
    /// known to students, so its connections and its places in a room are theirs to use up:
    /// held open, every connection the role may have keeps every seat out; announced again
    /// and again, a room's daily places for sessions the proctor did not start are gone.
    ///
    /// Each enrolled machine gets a login role of its own, `carrel_m_` and 16 hex digits of the
    /// SHA-256 of its name (`StoreLogin.role`), a member of the seat role (so it may call what
    /// the seat role may), with the seat role's limits on what a connection may hold, and a
    /// connection limit of its own. Its password is derived from the machine key by the
    /// machine's signing helper; the store is sent only its SCRAM verifier. The owner (who has
    /// CREATEROLE) makes the role through `carrel_enroll_login`, a SECURITY DEFINER function a
    /// proctor's role may call too: it makes or changes only the role of a machine enrolled in
    /// `carrel_machines`, with the figures `carrel_logins` holds (set by `carrel store init`),
    /// and refuses a new one when the server could not take every enrolled machine's
    /// connections besides the proctors' and the shared role's.
    ///
    /// The places of a room are counted per login: each session row keeps the machine role
    /// that made it (`created_by`, NULL for any other login), the shared logins keep version
    /// 5's quota among themselves, and each machine has its own (`machine_places`, 20 a room
    /// a day). `session_user` tells who called: the functions run as their owner. A machine a
    /// proctor retires (`carrel_machines.retired_at`) logs in no more.
    static let version8MachineLogins = """
        CREATE TABLE carrel_logins (
          id boolean PRIMARY KEY DEFAULT true CHECK (id),
          seat_role text NOT NULL DEFAULT 'carrel_seat' CHECK (octet_length(seat_role) BETWEEN 1 AND 63),
          machine_connections integer NOT NULL DEFAULT 3 CHECK (machine_connections BETWEEN 1 AND 100),
          machine_places integer NOT NULL DEFAULT 20 CHECK (machine_places BETWEEN 1 AND 10000),
          shared_connections integer NOT NULL DEFAULT 20 CHECK (shared_connections BETWEEN 1 AND 100000),
          proctor_reserve integer NOT NULL DEFAULT 10 CHECK (proctor_reserve BETWEEN 0 AND 100000));
        INSERT INTO carrel_logins DEFAULT VALUES;
        REVOKE ALL ON carrel_logins FROM PUBLIC;

        ALTER TABLE carrel_machines ADD COLUMN login_role text;

        ALTER TABLE carrel_sessions ADD COLUMN created_by text
          DEFAULT (CASE WHEN session_user::text ~ '^carrel_m_[0-9a-f]{16}$' THEN session_user::text END);
        CREATE INDEX carrel_sessions_created_by ON carrel_sessions (created_by, created_room, created_at) WHERE created_by IS NOT NULL;

        CREATE FUNCTION carrel_login_capacity() RETURNS TABLE (capacity integer, enrolled integer, max_connections integer,
            superuser_reserved integer, proctor_reserve integer, shared_connections integer, machine_connections integer)
          LANGUAGE sql STABLE SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
          -- How many machine logins the server takes: what is left of max_connections once
          -- superusers, proctors and the shared seat role have their connections, divided by
          -- one machine's; and how many members of the seat role are machine logins now.
          SELECT greatest(0, (current_setting('max_connections')::int - current_setting('superuser_reserved_connections')::int
                   - l.proctor_reserve - l.shared_connections) / l.machine_connections)::int,
                 (SELECT count(DISTINCT m.oid) FROM pg_auth_members a JOIN pg_roles m ON m.oid = a.member JOIN pg_roles s ON s.oid = a.roleid
                   WHERE s.rolname = l.seat_role AND m.rolcanlogin AND m.rolname ~ '^carrel_m_[0-9a-f]{16}$')::int,
                 current_setting('max_connections')::int, current_setting('superuser_reserved_connections')::int,
                 l.proctor_reserve, l.shared_connections, l.machine_connections
          FROM carrel_logins l;
        $$;

        CREATE FUNCTION carrel_enroll_login(p_machine text, p_verifier text) RETURNS TABLE (login text, capacity integer, enrolled integer)
          LANGUAGE plpgsql SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
        DECLARE
          l carrel_logins;
          k record;
          r text;
          existing pg_roles;
          seat_exists boolean;
        BEGIN
          -- Makes (or changes) the login of an enrolled machine, and only that: its name is the
          -- store's own function of the machine's name, its limits are carrel_logins', and its
          -- password is a SCRAM verifier (the password itself never reaches the server).
          SELECT * INTO l FROM carrel_logins;
          IF NOT EXISTS (SELECT 1 FROM carrel_machines WHERE name = p_machine AND retired_at IS NULL) THEN
            RAISE EXCEPTION 'carrel: machine % is not enrolled in this store', left(p_machine, 200) USING ERRCODE = '22023';
          END IF;
          IF p_verifier IS NULL OR octet_length(p_verifier) > 300
             OR p_verifier !~ '^SCRAM-SHA-256\\$[0-9]{4,7}:[A-Za-z0-9+/]+={0,2}\\$[A-Za-z0-9+/]+={0,2}:[A-Za-z0-9+/]+={0,2}$' THEN
            RAISE EXCEPTION 'carrel: a machine''s login takes a SCRAM-SHA-256 verifier' USING ERRCODE = '22023';
          END IF;
          SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = l.seat_role) INTO seat_exists;
          IF NOT seat_exists THEN
            RAISE EXCEPTION 'carrel: the seat role % does not exist; run `carrel store init` as the store''s owner', l.seat_role
              USING ERRCODE = '42704';
          END IF;
          r := 'carrel_m_' || left(encode(sha256(convert_to(p_machine, 'UTF8')), 'hex'), 16);
          SELECT * INTO existing FROM pg_roles WHERE rolname = r;
          IF existing.rolname IS NULL OR NOT existing.rolcanlogin THEN
            SELECT * INTO k FROM carrel_login_capacity();
            IF k.enrolled + 1 > k.capacity THEN
              RAISE EXCEPTION 'carrel: this server takes % enrolled machines and has % (max_connections % - % for superusers - % for proctors - % for the shared seat role, % each); raise max_connections (postgresql.conf, then restart PostgreSQL) and run `carrel store init` again',
                k.capacity, k.enrolled, k.max_connections, k.superuser_reserved, k.proctor_reserve, k.shared_connections, k.machine_connections
                USING ERRCODE = '53400';
            END IF;
          END IF;
          IF existing.rolname IS NULL THEN
            EXECUTE format('CREATE ROLE %I LOGIN INHERIT CONNECTION LIMIT %s PASSWORD %L IN ROLE %I', r, l.machine_connections, p_verifier, l.seat_role);
          ELSE
            IF existing.rolsuper OR existing.rolcreaterole OR existing.rolcreatedb OR existing.rolreplication OR existing.rolbypassrls THEN
              RAISE EXCEPTION 'carrel: role % exists with more rights than a machine''s; drop it as the cluster''s superuser', r
                USING ERRCODE = '42501';
            END IF;
            EXECUTE format('ALTER ROLE %I LOGIN INHERIT CONNECTION LIMIT %s PASSWORD %L', r, l.machine_connections, p_verifier);
            IF NOT pg_has_role(r, l.seat_role, 'MEMBER') THEN
              EXECUTE format('GRANT %I TO %I', l.seat_role, r);
            END IF;
          END IF;
          -- The seat role's limits (ALTER ROLE … SET is not inherited from a group).
          EXECUTE format('ALTER ROLE %I SET statement_timeout = %L', r, '10s');
          EXECUTE format('ALTER ROLE %I SET lock_timeout = %L', r, '2s');
          EXECUTE format('ALTER ROLE %I SET idle_in_transaction_session_timeout = %L', r, '10s');
          UPDATE carrel_machines SET login_role = r WHERE name = p_machine;
          RETURN QUERY SELECT r, c.capacity, c.enrolled FROM carrel_login_capacity() c;
        END $$;

        CREATE FUNCTION carrel_machine_retired() RETURNS trigger
          LANGUAGE plpgsql SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
        BEGIN
          -- A machine taken out of its lab (retired_at set by a proctor) logs in no more, and
          -- no longer counts among the machines the server takes; enrolling it again turns its
          -- login back on. (A connection already open stays until it ends.)
          IF NEW.retired_at IS NOT NULL AND OLD.retired_at IS NULL AND NEW.login_role ~ '^carrel_m_[0-9a-f]{16}$'
             AND EXISTS (SELECT 1 FROM pg_roles WHERE rolname = NEW.login_role) THEN
            EXECUTE format('ALTER ROLE %I NOLOGIN', NEW.login_role);
          END IF;
          RETURN NEW;
        END $$;
        CREATE TRIGGER carrel_machines_retired AFTER UPDATE OF retired_at ON carrel_machines
          FOR EACH ROW EXECUTE FUNCTION carrel_machine_retired();

        CREATE OR REPLACE FUNCTION carrel_room_has_place(p_room text) RETURNS boolean
          LANGUAGE sql STABLE SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
          -- As in version 5, counted per login: an enrolled machine's login (session_user: the
          -- caller's, whatever role runs this function) has its own places, `machine_places` a
          -- room a day (and as many in rooms without an open plan); every other login shares
          -- version 5's. Rows made before this version count as the shared logins'.
          SELECT CASE
            WHEN session_user::text ~ '^carrel_m_[0-9a-f]{16}$' THEN
              (SELECT count(*) FROM carrel_sessions s WHERE s.created_by = session_user::text AND s.created_room = p_room
                 AND s.created_at > clock_timestamp() - interval '1 day' AND NOT carrel_admitted(s.session))
                < (SELECT machine_places FROM carrel_logins)
            WHEN r.room IS NOT NULL THEN
              (SELECT count(*) FROM carrel_sessions s WHERE s.created_room = p_room AND s.created_by IS NULL
                 AND s.created_at > clock_timestamp() - interval '1 day' AND NOT carrel_admitted(s.session))
                < 100 + 2 * CASE WHEN jsonb_typeof(r.roster) = 'array' THEN jsonb_array_length(r.roster) ELSE 0 END
            ELSE
              (SELECT count(*) FROM carrel_sessions s WHERE s.created_room IS NOT NULL AND s.created_by IS NULL
                 AND s.created_at > clock_timestamp() - interval '1 day' AND NOT carrel_admitted(s.session)
                 AND NOT EXISTS (SELECT 1 FROM carrel_rooms o WHERE o.room = s.created_room AND o.closed_at IS NULL)) < 2000
            END
          FROM (SELECT (SELECT room FROM carrel_rooms WHERE room = p_room AND closed_at IS NULL) AS room,
                       (SELECT roster FROM carrel_rooms WHERE room = p_room AND closed_at IS NULL) AS roster) r;
        $$;

        REVOKE ALL ON FUNCTION carrel_login_capacity() FROM PUBLIC;
        REVOKE ALL ON FUNCTION carrel_machine_retired() FROM PUBLIC;
        REVOKE ALL ON FUNCTION carrel_enroll_login(text, text) FROM PUBLIC;
        REVOKE ALL ON FUNCTION carrel_room_has_place(text) FROM PUBLIC;
        DO $$
        DECLARE
          r record;
        BEGIN
          -- Every role that enrols machines (a proctor's) makes their logins.
          FOR r IN SELECT DISTINCT grantee FROM information_schema.role_table_grants
                   WHERE table_name = 'carrel_machines' AND privilege_type = 'INSERT'
                     AND table_schema = current_schema() AND grantee <> current_user LOOP
            EXECUTE format('GRANT EXECUTE ON FUNCTION carrel_enroll_login(text, text), carrel_login_capacity() TO %I', r.grantee);
            EXECUTE format('GRANT SELECT ON carrel_logins TO %I', r.grantee);
          END LOOP;
        END $$
        """

    /// What `carrel store init` grants the proctor's role of version 8.
    static let proctorLoginGrants = [
        "GRANT EXECUTE ON FUNCTION carrel_enroll_login(text, text), carrel_login_capacity() TO",
        "GRANT SELECT ON carrel_logins TO",
    ]
}

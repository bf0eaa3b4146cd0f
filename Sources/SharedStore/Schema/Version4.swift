extension SharedSchema {
    /// Version 4, signed commands: each command keeps the envelope the proctor signed and its signature
    /// (seats read those and nothing else of it), the room keeps its test's public key, and a
    /// seat's refusals of commands are counted for the console. The functions that replace
    /// `carrel_seat_commands` and add the start and refusal calls are granted to every role
    /// that could call the old one.
    static let version4SignedCommands = """
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

        \(helloFunction("CREATE OR REPLACE", note: "As in version 2, with the seat's public key for the proctor's start (`box_key`).",
                         columns: helloRoomColumns + ", seat_key", values: helloRoomValues + helloSeatKeyValue))

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

        \(roomRecordFunction("CREATE OR REPLACE", commandEvents: roomRecordCommandsV4))

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

    /// What version 4 adds to the row `carrel_hello` makes (after version 2's): the seat's
    /// public key for the proctor's start, when it has the form of one.
    static let helloSeatKeyValue = """
        ,
              CASE WHEN p_body->>'box_key' ~ '^[A-Za-z0-9+/]{43}=$' THEN p_body->>'box_key' END
        """

    /// Version 4's events about commands: a refusal counted, and a proctor_command event that
    /// may carry the command's sequence (`#ID.SEQUENCE`) of a signed command.
    static let roomRecordCommandsV4 = """
            ELSIF NEW.kind = 'event' AND b->>'kind' = 'command_refused' THEN
              UPDATE carrel_sessions SET refused = refused + 1, last_refusal = left(b->>'detail', 300)
                WHERE session = NEW.session;
            ELSIF NEW.kind = 'event' AND b->>'kind' = 'proctor_command' AND b->>'detail' ~ '^#[0-9]{1,18}(\\.[0-9]{1,19})? [a-z]+' THEN
              -- `#ID[.SEQUENCE] ACTION[ ARGUMENT]`: the seat applied the command it verified.
              detail := b->>'detail';
              command := substring(detail from '^#([0-9]+)')::bigint;
        """
}

extension SharedSchema {
    /// Version 7, enrolled machines. A lab machine is enrolled once by its administrator
    /// (`carrel seat enroll`): the public half of its machine key, its name and its lab are
    /// kept in `carrel_machines`, written by the owner or a proctor's role, read by no seat. A
    /// room's plan names the machines whose seats its proctor starts (`machine_rule`: every
    /// enrolled machine, of `lab` when it names one; those `machines` lists; or any machine,
    /// the proctor checking each seat key as before). A seat that is not one of them is held
    /// back until a proctor admits it, after reading its seat key on its screen:
    /// `carrel_admissions` keeps which session, with which seat key.
    ///
    /// The seat's signed statement travels in the announcement's `attestation` (already kept
    /// whole by `carrel_hello`, up to 4000 bytes): the seat's role gains no function and no
    /// table. Nothing here is trusted because a seat wrote it — the console checks the
    /// signature against the key enrolled here.
    static let version7EnrolledMachines = """
        CREATE TABLE carrel_machines (
          name text PRIMARY KEY CHECK (octet_length(name) BETWEEN 1 AND 200),
          lab text NOT NULL CHECK (octet_length(lab) BETWEEN 1 AND 200),
          public_key text NOT NULL CHECK (public_key ~ '^[0-9a-f]{64}$'),
          enrolled_at timestamptz NOT NULL DEFAULT now(),
          enrolled_by text NOT NULL DEFAULT current_user,
          retired_at timestamptz);
        CREATE INDEX carrel_machines_lab ON carrel_machines (lab);

        ALTER TABLE carrel_rooms
          ADD COLUMN machine_rule text NOT NULL DEFAULT 'enrolled' CHECK (machine_rule IN ('enrolled', 'listed', 'any')),
          ADD COLUMN lab text CHECK (octet_length(lab) BETWEEN 1 AND 200),
          ADD COLUMN machines text[] CHECK (cardinality(machines) <= 2000);

        CREATE TABLE carrel_admissions (
          room text NOT NULL,
          session text NOT NULL,
          seat_key text NOT NULL CHECK (octet_length(seat_key) <= 100),
          admitted_at timestamptz NOT NULL DEFAULT now(),
          admitted_by text NOT NULL DEFAULT current_user,
          PRIMARY KEY (room, session));

        REVOKE ALL ON carrel_machines FROM PUBLIC;
        REVOKE ALL ON carrel_admissions FROM PUBLIC;
        DO $$
        DECLARE
          r record;
        BEGIN
          -- Every role that opens rooms (a proctor's) enrols machines and admits seats.
          FOR r IN SELECT DISTINCT grantee FROM information_schema.role_table_grants
                   WHERE table_name = 'carrel_rooms' AND privilege_type = 'INSERT'
                     AND table_schema = current_schema() AND grantee <> current_user LOOP
            EXECUTE format('GRANT SELECT, INSERT, UPDATE ON carrel_machines TO %I', r.grantee);
            EXECUTE format('GRANT SELECT, INSERT, UPDATE ON carrel_admissions TO %I', r.grantee);
          END LOOP;
        END $$
        """

    /// What `carrel store init` grants the proctor's role on version 6's tables.
    static let proctorMachineGrants = ["carrel_machines", "carrel_admissions"]
}

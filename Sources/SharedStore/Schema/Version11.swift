extension SharedSchema {
    /// Version 11, assessment mode reaches the console: a seat's `assessment_mode` events
    /// (began with its steps, not begun and why, ended, left running) and `machine_incident`
    /// events (a login, a device, another program on the machine) are counted and kept on the
    /// session's row as they arrive, for the console to say at once. A trigger of its own,
    /// fired only for those two events, so that every other record costs the store nothing more.
    static let version11MachineEvents = """
        ALTER TABLE carrel_sessions
          ADD COLUMN machine_incidents integer NOT NULL DEFAULT 0,
          ADD COLUMN last_incident text,
          ADD COLUMN assessment_mode text;

        CREATE FUNCTION carrel_machine_event() RETURNS trigger
          LANGUAGE plpgsql SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
        BEGIN
          IF NEW.body->>'kind' = 'machine_incident' THEN
            UPDATE carrel_sessions SET machine_incidents = machine_incidents + 1,
                last_incident = left(NEW.body->>'detail', 300)
              WHERE session = NEW.session;
          ELSE
            UPDATE carrel_sessions SET assessment_mode = left(NEW.body->>'detail', 300) WHERE session = NEW.session;
          END IF;
          RETURN NULL;
        EXCEPTION WHEN others THEN
          -- Kept, not applied, as every record the store cannot read.
          RETURN NULL;
        END;
        $$;
        CREATE TRIGGER carrel_machine_event AFTER INSERT ON carrel_records FOR EACH ROW
          WHEN (NEW.kind = 'event' AND jsonb_typeof(NEW.body) = 'object'
                AND NEW.body->>'kind' IN ('machine_incident', 'assessment_mode'))
          EXECUTE FUNCTION carrel_machine_event();
        """
}

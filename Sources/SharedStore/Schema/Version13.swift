extension SharedSchema {
    /// Version 13, a batch of records applied at once: the three row triggers that applied
    /// each record (`carrel_records_apply`, `carrel_records_room`, `carrel_machine_event`),
    /// each a call and a subtransaction of its own for every record and each updating the
    /// session's row, become one statement trigger (`carrel_apply_records`) that reads what
    /// the insert added (a transition table) in the order they were inserted, as the row
    /// triggers met them (a seat sends a session's records by their numbers). It writes
    /// the answers, flags, results and commands applied as before, but gathers what the
    /// records change in the session's row and makes one update of it for the batch: a
    /// begin's eleven records made eleven or more updates of the row, and make one (with the
    /// records counted against the session's quota, which `carrel_publish` did in an update
    /// of its own).
    ///
    /// A batch changes what its records changed one after another under version 12. One the
    /// trigger cannot apply whole (a record whose time is no time) is applied again one record
    /// at a time, each in a block of its own: a record that cannot be applied is kept as it
    /// came and changes nothing, as every version before made sure.
    static let version13BatchedRecords = """
        DROP TRIGGER carrel_records_apply ON carrel_records;
        DROP TRIGGER carrel_records_room ON carrel_records;
        DROP TRIGGER carrel_machine_event ON carrel_records;
        DROP FUNCTION carrel_apply_record();
        DROP FUNCTION carrel_apply_room_record();
        DROP FUNCTION carrel_machine_event();

        CREATE FUNCTION carrel_apply_records() RETURNS trigger
          LANGUAGE plpgsql SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
        DECLARE
          r record;
          b jsonb;
          was boolean;
          now_answered boolean;
          detail text;
          command bigint;
          action text;
          held_records bigint;
          held_bytes bigint;
        \(sessionChangeDeclarations)
        BEGIN
          -- Records come from seats, whose role anyone at a seat may use: each one is checked,
          -- and one that cannot be applied is kept as it came but changes nothing else (no
          -- error reaches the seat, whose later records would otherwise wait behind it).
          BEGIN
            FOR r IN SELECT a.session, a.seq, a.kind, a.at, a.body, coalesce(octet_length(a.body_text), 0) AS size FROM added a LOOP
              IF pending IS DISTINCT FROM r.session THEN
        \(sessionChangesWritten)
              END IF;
              -- Every record counts against the session's quota (its text kept twice: as sent
              -- and as jsonb), as carrel_publish counted them before version 13, written with the
              -- session's row (which carrel_publish has made or proven before it inserts: an
              -- owner's own insert of records before their session's row is not counted).
              pending := r.session;
              kept_records := coalesce(kept_records, 0) + 1;
              kept_bytes := coalesce(kept_bytes, 0) + 2 * r.size;
              IF jsonb_typeof(r.body) = 'object' THEN
        \(recordApplied)
              END IF;
            END LOOP;
        \(sessionChangesWritten)
            RETURN NULL;
          EXCEPTION WHEN others THEN
        \(sessionChangesForgotten)
          END;
          -- Applied again one record at a time (see above).
          FOR r IN SELECT a.session, a.seq, a.kind, a.at, a.body FROM added a
                   WHERE jsonb_typeof(a.body) = 'object' LOOP
            BEGIN
        \(recordApplied)
        \(sessionChangesWritten)
            EXCEPTION WHEN others THEN
              -- Kept, not applied.
        \(sessionChangesForgotten)
            END;
          END LOOP;
          -- Every record counted, those that could not be applied too (their sessions' rows
          -- made by now).
          UPDATE carrel_sessions c SET records_count = c.records_count + x.records, records_bytes = c.records_bytes + x.bytes
            FROM (SELECT a.session, count(*) AS records, 2 * sum(coalesce(octet_length(a.body_text), 0)) AS bytes
                    FROM added a GROUP BY a.session) x
            WHERE c.session = x.session;
          RETURN NULL;
        END $$;
        REVOKE ALL ON FUNCTION carrel_apply_records() FROM PUBLIC;
        CREATE TRIGGER carrel_records_apply AFTER INSERT ON carrel_records
          REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION carrel_apply_records();

        \(redefined("carrel_publish(p_sessions text[]", in: version12LighterRecords, [
            .span(from: "  FOR i IN 1 .. coalesce(array_length(kept_sessions, 1), 0) LOOP",
                  upTo: "  IF (SELECT coalesce(sum(k), 0) FROM unnest(kept_records) AS k) = n THEN",
                  with: "  -- The records kept are counted against each session's quota by the record trigger, in its one\n"
                      + "  -- update of the session's row (version 13).\n"),
        ]))

        CREATE PROCEDURE carrel_publish_committed(p_sessions text[], p_tokens text[], p_previous text[], p_seqs int8[],
            p_kinds text[], p_ats timestamptz[], p_bodies text[], p_macs text[], INOUT kept int8 DEFAULT NULL, INOUT refused text DEFAULT NULL,
            p_live_session text DEFAULT NULL, p_live_token text DEFAULT NULL, p_live_previous text DEFAULT NULL,
            p_live_mac text DEFAULT NULL, p_live_elapsed double precision DEFAULT NULL)
          LANGUAGE plpgsql AS $$
        BEGIN
          -- carrel_publish, committed before the call returns: a seat's batch is one call instead
          -- of BEGIN, carrel_publish and COMMIT, and the call's completion still says the batch
          -- is durable. It runs with the caller's rights (a procedure that commits may be
          -- neither SECURITY DEFINER nor given a search path) and names the schema itself.
          -- With a session's liveness claim (a begin's first batch), carrel_live first, as the
          -- seat made it before its batch when they were two calls, and committed on its own:
          -- a batch that fails does not take the claim with it, and the claim's row lock (and
          -- a sweep it ran) is not held while the batch takes its sessions' rows in order.
          IF p_live_session IS NOT NULL THEN
            PERFORM @SCHEMA@.carrel_live(p_live_session, p_live_token, p_live_previous, p_live_mac, p_live_elapsed);
            COMMIT;
          END IF;
          SELECT p.kept, p.refused INTO kept, refused
            FROM @SCHEMA@.carrel_publish(p_sessions, p_tokens, p_previous, p_seqs, p_kinds, p_ats, p_bodies, p_macs) AS p;
          COMMIT;
        END $$;
        REVOKE ALL ON PROCEDURE \(seatProcedures) FROM PUBLIC;
        DO $$
        DECLARE
          r record;
        BEGIN
          -- Each role that may call carrel_publish (a seat's, a proctor's) may call this too.
          FOR r IN SELECT DISTINCT a.grantee::regrole::text AS role
                   FROM pg_proc p, aclexplode(p.proacl) a
                   WHERE p.oid = 'carrel_publish(text[], text[], text[], int8[], text[], timestamptz[], text[], text[])'::regprocedure
                     AND a.privilege_type = 'EXECUTE' AND a.grantee <> p.proowner AND a.grantee <> 0 LOOP
            EXECUTE format('GRANT EXECUTE ON PROCEDURE \(seatProcedures) TO %s', r.role);
          END LOOP;
        END $$
        """

    /// Every procedure a seat's role calls, as `GRANT EXECUTE ON PROCEDURE` lists them
    /// (`carrel store init` grants them; a procedure is not a function to GRANT).
    static let seatProcedures =
        "carrel_publish_committed(text[], text[], text[], int8[], text[], timestamptz[], text[], text[], int8, text, "
            + "text, text, text, text, double precision)"

    /// What a session's records change in its row, gathered until it is written: its name
    /// (`pending`), then each column's change or new value (null: unchanged).
    static let sessionChanges: [(name: String, type: String)] = [
        ("pending", "text"), ("seen_seq", "bigint"), ("seen_elapsed", "double precision"),
        ("answered_change", "bigint"), ("flagged_change", "bigint"), ("pastes", "bigint"), ("focus_lost", "bigint"),
        ("exits", "bigint"), ("new_status", "text"), ("ended", "boolean"), ("new_end_reason", "text"),
        ("new_ended_at", "timestamptz"), ("resumes", "bigint"), ("resumed_pid", "integer"), ("announced", "boolean"),
        ("new_candidate_number", "text"), ("new_attestation", "jsonb"), ("new_hand", "text"), ("passphrase_misses", "bigint"),
        ("refusals", "bigint"), ("new_refusal", "text"), ("new_paused", "boolean"), ("time_added", "bigint"),
        ("top_command", "bigint"), ("incidents", "bigint"), ("new_incident", "text"), ("modes", "bigint"), ("new_mode", "text"),
        ("kept_records", "bigint"), ("kept_bytes", "bigint"),
    ]

    static var sessionChangeDeclarations: String {
        sessionChanges.map { "  \($0.name) \($0.type);" }.joined(separator: "\n")
    }

    /// A count of the session's row with a batch's change, kept within an integer's range:
    /// a seat that sends a count's worth of made-up events does not make every later batch fail
    /// (and be applied again one record at a time).
    static func counted(_ column: String, _ change: String) -> String {
        "least(greatest(c.\(column)::bigint + coalesce(\(change), 0), 0), 2147483647)::integer"
    }

    /// Every gathered change set back to none.
    static var sessionChangesForgotten: String {
        "        " + sessionChanges.map { "\($0.name) := NULL;" }.joined(separator: " ")
    }

    /// The session's row updated with what its records changed, once; then nothing pending.
    /// `new_hand` 'acknowledge' is a proctor's acknowledgement met before any hand raised in
    /// the batch: it acknowledges a hand the row has raised.
    static var sessionChangesWritten: String {
        """
                IF pending IS NOT NULL THEN
                  UPDATE carrel_sessions c SET last_seen = CASE WHEN seen_seq IS NULL THEN c.last_seen ELSE now() END,
                      last_seq = greatest(c.last_seq, seen_seq),
                      records_count = c.records_count + coalesce(kept_records, 0), records_bytes = c.records_bytes + coalesce(kept_bytes, 0),
                      saved_elapsed_seconds = coalesce(seen_elapsed, c.saved_elapsed_seconds),
                      answered = \(counted("answered", "answered_change")), flagged = \(counted("flagged", "flagged_change")),
                      paste_attempts = \(counted("paste_attempts", "pastes")), focus_losses = \(counted("focus_losses", "focus_lost")),
                      exit_attempts = \(counted("exit_attempts", "exits")), status = coalesce(new_status, c.status),
                      end_reason = CASE WHEN ended THEN new_end_reason ELSE c.end_reason END,
                      ended_at = CASE WHEN ended THEN new_ended_at ELSE c.ended_at END,
                      interruptions = \(counted("interruptions", "resumes")),
                      pid = CASE WHEN resumes > 0 THEN resumed_pid ELSE c.pid END,
                      candidate_number = CASE WHEN announced THEN new_candidate_number ELSE c.candidate_number END,
                      attestation = coalesce(new_attestation, c.attestation),
                      hand = CASE WHEN new_hand IS NULL THEN c.hand
                                  WHEN new_hand = 'acknowledge' THEN CASE WHEN c.hand = 'raised' THEN 'acknowledged' ELSE c.hand END
                                  ELSE new_hand END,
                      passphrase_failures = \(counted("passphrase_failures", "passphrase_misses")),
                      refused = \(counted("refused", "refusals")),
                      last_refusal = CASE WHEN refusals > 0 THEN new_refusal ELSE c.last_refusal END,
                      paused = coalesce(new_paused, c.paused), added_seconds = \(counted("added_seconds", "time_added")),
                      last_command = greatest(c.last_command, top_command),
                      machine_incidents = \(counted("machine_incidents", "incidents")),
                      last_incident = CASE WHEN incidents > 0 THEN new_incident ELSE c.last_incident END,
                      assessment_mode = CASE WHEN modes > 0 THEN new_mode ELSE c.assessment_mode END
                    WHERE c.session = pending;
                \(sessionChangesForgotten)
                END IF;
        """
    }

    /// One record applied: what it writes besides the session's row, at once (as version 12
    /// did); what it changes in the row, gathered. A session's announcement writes what was
    /// gathered first, as it reads the row's status.
    static var recordApplied: String {
        """
                b := r.body;
                IF r.kind = 'session' THEN
                  -- The counts wait for the row the announcement may make.
                  held_records := kept_records;
                  held_bytes := kept_bytes;
                  kept_records := NULL;
                  kept_bytes := NULL;
                  -- (Nothing gathered of an earlier record: nothing to write.)
                  IF seen_seq IS NOT NULL THEN
        \(sessionChangesWritten)
                  END IF;
                  kept_records := held_records;
                  kept_bytes := held_bytes;
        \(sessionAnnounced)
                  announced := true;
                  new_candidate_number := left(b->>'candidate_number', 64);
                  IF jsonb_typeof(b->'attestation') = 'object' AND octet_length((b->'attestation')::text) <= 4000 THEN
                    new_attestation := b->'attestation';
                  END IF;
                ELSIF r.kind = 'answer' AND jsonb_typeof(b->'item') = 'string' THEN
                  now_answered := coalesce(jsonb_typeof(b->'answered') = 'boolean' AND (b->>'answered')::boolean, false);
                  SELECT a.answered INTO was FROM carrel_answers a WHERE a.session = r.session AND a.item = b->>'item';
                  INSERT INTO carrel_answers (session, item, response, answered, at)
                    VALUES (r.session, b->>'item', b->'response', now_answered, r.at)
                    ON CONFLICT (session, item) DO UPDATE
                      SET response = excluded.response, answered = excluded.answered, at = excluded.at;
                  answered_change := coalesce(answered_change, 0) + (CASE WHEN now_answered THEN 1 ELSE 0 END)
                    - (CASE WHEN coalesce(was, false) THEN 1 ELSE 0 END);
                ELSIF r.kind = 'flag' AND jsonb_typeof(b->'item') = 'string' THEN
                  IF jsonb_typeof(b->'on') = 'boolean' AND (b->>'on')::boolean THEN
                    INSERT INTO carrel_flags (session, item) VALUES (r.session, b->>'item') ON CONFLICT DO NOTHING;
                    IF FOUND THEN flagged_change := coalesce(flagged_change, 0) + 1; END IF;
                  ELSE
                    DELETE FROM carrel_flags f WHERE f.session = r.session AND f.item = b->>'item';
                    IF FOUND THEN flagged_change := coalesce(flagged_change, 0) - 1; END IF;
                  END IF;
                ELSIF r.kind = 'event' THEN
        \(eventApplied)
                ELSIF r.kind = 'status' AND b->>'status' IN ('active', 'review', 'ending', 'ended', 'interrupted', 'abandoned')
                      AND (b->>'end_reason' IS NULL OR b->>'end_reason' IN ('submitted', 'timed_out', 'ended_by_proctor', 'ended_by_candidate')) THEN
                  new_status := b->>'status';
                  ended := true;
                  new_end_reason := b->>'end_reason';
                  new_ended_at := CASE WHEN jsonb_typeof(b->'ended_at') = 'string' THEN (b->>'ended_at')::timestamptz END;
                ELSIF r.kind = 'resumed' THEN
                  new_status := 'active';
                  resumes := coalesce(resumes, 0) + 1;
                  resumed_pid := carrel_number(b->'pid', 0, 2147483647)::integer;
                ELSIF r.kind = 'result' AND jsonb_typeof(b->'json') = 'string' THEN
        \(excerpt(version1Sessions, from: "INSERT INTO carrel_results (session, json)", through: "SET json = excluded.json;"))
                END IF;
                -- Every record: the last one seen, and the time used as its journal saved it.
                pending := r.session;
                seen_seq := greatest(seen_seq, r.seq);
                seen_elapsed := coalesce(carrel_number(b->'elapsed', 0, 10000000), seen_elapsed);
        """
    }

    /// An event's counts, the room's view of it (a hand, a refusal, a command applied) and
    /// assessment mode's reports, gathered.
    static var eventApplied: String {
        """
                  CASE b->>'kind'
                    WHEN 'paste_blocked' THEN pastes := coalesce(pastes, 0) + 1;
                    WHEN 'focus_lost' THEN focus_lost := coalesce(focus_lost, 0) + 1;
                    WHEN 'exit_attempt' THEN exits := coalesce(exits, 0) + 1;
                    WHEN 'hand_raised' THEN new_hand := 'raised';
                    WHEN 'passphrase_failed' THEN passphrase_misses := coalesce(passphrase_misses, 0) + 1;
                    WHEN 'command_refused' THEN
                      refusals := coalesce(refusals, 0) + 1;
                      new_refusal := left(b->>'detail', 300);
                    WHEN 'machine_incident' THEN
                      incidents := coalesce(incidents, 0) + 1;
                      new_incident := left(b->>'detail', 300);
                    WHEN 'assessment_mode' THEN
                      modes := coalesce(modes, 0) + 1;
                      new_mode := left(b->>'detail', 300);
                    WHEN 'proctor_command' THEN
                      -- `#ID[.SEQUENCE] ACTION[ ARGUMENT]`: the seat applied the command it verified.
                      detail := b->>'detail';
                      IF detail ~ '^#[0-9]{1,18}(\\.[0-9]{1,19})? [a-z]+' THEN
                        command := substring(detail from '^#([0-9]+)')::bigint;
                        action := split_part(detail, ' ', 2);
                        IF action IN ('start', 'pause', 'resume', 'time', 'message', 'end', 'acknowledge') THEN
                          INSERT INTO carrel_command_applied (command, session) VALUES (command, r.session) ON CONFLICT DO NOTHING;
                        END IF;
                        IF action = 'pause' THEN
                          new_paused := true;
                        ELSIF action = 'resume' THEN
                          new_paused := false;
                        ELSIF action = 'acknowledge' THEN
                          new_hand := CASE WHEN new_hand IS NULL THEN 'acknowledge'
                                           WHEN new_hand = 'raised' THEN 'acknowledged' ELSE new_hand END;
                        ELSIF action = 'time' AND split_part(detail, ' ', 3) ~ '^[0-9]{1,7}$' THEN
                          time_added := coalesce(time_added, 0) + split_part(detail, ' ', 3)::integer;
                        END IF;
                        top_command := greatest(top_command, command);
                      END IF;
                    ELSE
                      NULL;
                  END CASE;
        """
    }

    /// A session's announcement makes its row or fills the one its hello made: version 1's
    /// statement, as it stands there.
    static var sessionAnnounced: String {
        excerpt(version1Sessions, from: "      INSERT INTO carrel_sessions (session, room, seat", through: "WHERE carrel_sessions.status = 'not_started';")
    }

    /// A statement as an earlier version's function wrote it, from `from` through `through`,
    /// with its record `r` where the row trigger had `NEW`: a version that moves a statement
    /// names it instead of copying it. Text not found exactly once gives a body that does not
    /// compile, which stops the migration (the versions' digests pin the result besides).
    static func excerpt(_ sql: String, from: String, through: String) -> String {
        guard sql.components(separatedBy: from).count == 2, let start = sql.range(of: from),
              let end = sql.range(of: through, range: start.upperBound..<sql.endIndex) else {
            return "!! carrel: the schema's text of an earlier version was not found !!;"
        }
        return String(sql[start.lowerBound..<end.upperBound]).replacingOccurrences(of: "NEW.", with: "r.")
    }
}

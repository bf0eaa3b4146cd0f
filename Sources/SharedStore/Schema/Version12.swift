extension SharedSchema {
    /// Version 12, an answer costs the store less, and what an attack pass on it found is closed.
    /// Nothing a seat or the console reads changes.
    ///
    /// - `carrel_token_hash` and `carrel_number` no longer pin their own search path (they name
    ///   only the catalog's functions, qualified, and are not SECURITY DEFINER): PostgreSQL
    ///   inlines `carrel_number` into the record trigger (its last update of the session's row
    ///   went from 0.045 to 0.010 ms) and calls `carrel_token_hash` without setting a search
    ///   path (it cannot inline it: `convert_to` is not immutable).
    /// - `carrel_publish` reads the session's token once and proves the session's own seat by
    ///   it (`carrel_proven` is still asked when the token is being replaced); reads the counts
    ///   under the session's row lock, taken only once the seat proved it and in the sessions'
    ///   order, so that connections of one session publishing at once are counted one after
    ///   the other; refuses a batch whose session's row was made again meanwhile, to be sent
    ///   again; asks whether the proctor started the session only past the smaller quota;
    ///   refuses arrays of more than one dimension; reads the batch back only when it did not
    ///   insert every record, and counts as kept only the records of sessions it proved.
    /// - `carrel_live` and `carrel_pulse` of a proving seat make their update themselves
    ///   instead of calling the SQL function that made it (PostgreSQL plans a SQL function's
    ///   body again at every call), and enter the block that guards the sweep only when a
    ///   sweep is due (`carrel_sweep_due`), not at every pulse.
    /// - The record trigger makes one update of the session's row for a record, with an
    ///   answer's and an event's counts in it.
    /// - `carrel_hello`/3 and `carrel_seat_refused`/3, meeting a concurrent announcement of the
    ///   same new session, keep that one's token and say they do not hold the session.
    static let version12LighterRecords = """
        CREATE OR REPLACE FUNCTION carrel_token_hash(p_token text) RETURNS text
          LANGUAGE sql IMMUTABLE AS $$
          -- A token of 32 to 100 characters as the store keeps it; anything else matches nothing.
          SELECT CASE WHEN pg_catalog.length(p_token) BETWEEN 32 AND 100
            THEN pg_catalog.encode(pg_catalog.sha256(pg_catalog.convert_to(p_token, 'UTF8')), 'hex') END;
        $$;

        CREATE OR REPLACE FUNCTION carrel_number(v jsonb, low double precision, high double precision) RETURNS double precision
          LANGUAGE sql IMMUTABLE AS $$
          -- A number a seat sent, kept within [low, high]; NaN, infinities, text and null give null.
          SELECT CASE WHEN pg_catalog.jsonb_typeof(v) = 'number' THEN least(greatest(v::text::double precision, low), high) END;
        $$;

        \(redefined("carrel_publish(p_sessions text[]", in: version5ProvenSeats, [
            .insert(publishChecksV12, before: "  IF n > 1000 OR n <> coalesce(array_length(p_tokens, 1), 0)"),
            .insert(publishDeclarationsV12, before: "BEGIN\n  -- A batch of records"),
            .replace("GROUP BY x.s LOOP", with: "GROUP BY x.s ORDER BY x.s LOOP"),
            .span(from: "    IF NOT carrel_proven(u.s, u.t, u.p) THEN", upTo: "  END LOOP;", with: publishProofV12 + "\n"),
            .insert(publishShortcutV12, before: "  RETURN QUERY SELECT (SELECT count(*)"),
            .replace("    WHERE EXISTS (SELECT 1 FROM carrel_records r WHERE r.session = x.s",
                     with: "    WHERE x.s = ANY(proven_sessions) AND EXISTS (SELECT 1 FROM carrel_records r WHERE r.session = x.s"),
        ]))

        \(redefined("carrel_apply_record()", in: version1Sessions, [
            .insert(applyDeclarationsV12, before: "BEGIN\n  -- Records come from seats"),
            .span(from: "      UPDATE carrel_sessions\n        SET answered = answered", upTo: "    ELSIF NEW.kind = 'flag'",
                  with: applyAnswerCountV12 + "\n"),
            .span(from: "    ELSIF NEW.kind = 'event' THEN\n", upTo: "    ELSIF NEW.kind = 'status'", with: applyEventCountsV12 + "\n"),
            .span(from: "    UPDATE carrel_sessions SET last_seen = now(), last_seq", upTo: "  EXCEPTION WHEN others THEN",
                  with: applyLastSeenV12 + "\n"),
        ]))

        \(redefined("carrel_hello(p_session text, p_body jsonb, p_token text)", in: version9SharedResources, [
            .replace("""
                    WHERE session = p_session AND token_hash IS NULL;
                  RETURN true;
                """, with: """
                    WHERE session = p_session AND token_hash IS NULL;
                  -- Another announcement of the same new session may have made the row and set
                  -- its token first: this one holds the session only if the token is its own.
                  RETURN FOUND;
                """),
        ]))

        \(redefined("carrel_seat_refused(p_session text, p_token text, p_body jsonb)", in: version9SharedResources, [
            .replace("""
                      created_by = CASE WHEN prior.session IS NOT NULL THEN prior.created_by ELSE created_by END
                    WHERE session = p_session;
                  RETURN EXISTS (SELECT 1 FROM carrel_sessions WHERE session = p_session);
                """, with: """
                      created_by = CASE WHEN prior.session IS NOT NULL THEN prior.created_by ELSE created_by END
                    -- The row this call made or took (a seat's announcement of the same new
                    -- session may have made it first: its token is kept).
                    WHERE session = p_session AND (prior.session IS NOT NULL OR token_hash IS NULL);
                  RETURN EXISTS (SELECT 1 FROM carrel_sessions WHERE session = p_session AND token_hash = carrel_token_hash(p_token));
                """),
        ]))

        CREATE OR REPLACE FUNCTION carrel_live(p_session text, p_token text, p_previous text, p_mac text, p_elapsed double precision)
          RETURNS boolean LANGUAGE plpgsql SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
        BEGIN
          IF NOT carrel_proven(p_session, p_token, p_previous) THEN RETURN false; END IF;
          -- carrel_live(text, text, double precision)'s update, made here: a SQL function is
          -- planned again at every call, a statement here once for the connection.
          UPDATE carrel_sessions SET backend_pid = pg_backend_pid(), live_mac = left(p_mac, 100), live_at = now(), last_seen = now(),
              elapsed_seconds = coalesce(least(greatest(p_elapsed, 0), 10000000), elapsed_seconds)
            WHERE session = p_session;
          PERFORM carrel_sweep_due();
          RETURN true;
        END $$;

        CREATE OR REPLACE FUNCTION carrel_pulse(p_session text, p_token text, p_previous text, p_elapsed double precision)
          RETURNS boolean LANGUAGE plpgsql SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
        BEGIN
          IF NOT carrel_proven(p_session, p_token, p_previous) THEN RETURN false; END IF;
          -- carrel_pulse(text, double precision)'s update, made here (as in carrel_live).
          UPDATE carrel_sessions SET last_seen = now(),
              elapsed_seconds = coalesce(least(greatest(p_elapsed, 0), 10000000), elapsed_seconds)
            WHERE session = p_session;
          PERFORM carrel_sweep_due();
          RETURN true;
        END $$;

        CREATE FUNCTION carrel_sweep_due() RETURNS void
          LANGUAGE plpgsql SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
        BEGIN
          -- The sweep, when one is due (at most every 3 seconds, as carrel_sweep itself
          -- decides): only then is it run in a block of its own, which a failing sweep
          -- leaves without stopping the pulse (a server without the owner's rights).
          IF EXISTS (SELECT 1 FROM carrel_sweeps s WHERE s.last_at > clock_timestamp() - interval '3 seconds') THEN
            RETURN;
          END IF;
          BEGIN
            PERFORM carrel_sweep();
          EXCEPTION WHEN others THEN
            NULL;
          END;
        END $$;
        REVOKE ALL ON FUNCTION carrel_sweep_due() FROM PUBLIC;
        """

    /// Version 12's proof and quota (see above) and the variables they read into.
    static let publishDeclarationsV12 = "  h text;\n  held_records bigint;\n  held_bytes bigint;\n  proven boolean;\n  proven_sessions text[] := '{}';\n"
    static let publishProofV12 = """
            -- The session's own seat is proven by its current token, read once; anything else
            -- (a token being replaced, none) is asked of carrel_proven as before. (Every test is
            -- made true or false: a token of the wrong form hashes to null.)
            SELECT c.token_hash INTO h FROM carrel_sessions c WHERE c.session = u.s;
            proven := FOUND AND coalesce(h = carrel_token_hash(u.t), false);
            IF NOT proven THEN
              proven := coalesce(carrel_proven(u.s, u.t, u.p), false);
            END IF;
            IF NOT proven THEN
              why := 'this seat has not proven it holds session ' || left(u.s, 40);
            ELSE
              -- The counts under the session's lock (only its own seat gets this far, and the
              -- sessions are taken in order): connections of one session publishing at once
              -- are counted one after the other, never all against the same counts. Whether the
              -- proctor started it (the larger quota) is asked only past the smaller one.
              proven_sessions := proven_sessions || u.s;
              SELECT c.records_count, c.records_bytes INTO held_records, held_bytes
                FROM carrel_sessions c WHERE c.session = u.s FOR UPDATE;
              IF NOT FOUND THEN
                -- The row was made again while this batch waited for it (the seat's full
                -- announcement replacing its look-up row): nothing is counted against a row
                -- this call cannot see, and the seat sends the batch again.
                RAISE EXCEPTION 'carrel: session % changed while its batch was checked; send it again', left(u.s, 40)
                  USING ERRCODE = '40001';
              ELSIF (held_records + u.records > 50000 OR held_bytes + u.bytes > 33554432)
                 AND NOT (carrel_admitted(u.s) AND held_records + u.records <= 1000000 AND held_bytes + u.bytes <= 536870912) THEN
                why := 'session ' || left(u.s, 40) || ' is at its quota of records in the store';
              ELSE
                allowed := allowed || u.s;
              END IF;
            END IF;
        """
    /// Each array one-dimensional: the length check reads the first dimension alone, and a
    /// two-dimensional batch passed it with up to a million records.
    static let publishChecksV12 = """
          IF coalesce(array_ndims(p_sessions), 1) <> 1 OR coalesce(array_ndims(p_tokens), 1) <> 1
             OR coalesce(array_ndims(p_previous), 1) <> 1 OR coalesce(array_ndims(p_seqs), 1) <> 1
             OR coalesce(array_ndims(p_kinds), 1) <> 1 OR coalesce(array_ndims(p_ats), 1) <> 1
             OR coalesce(array_ndims(p_bodies), 1) <> 1 OR coalesce(array_ndims(p_macs), 1) <> 1 THEN
            RAISE EXCEPTION 'carrel: a batch is at most 1000 records, each given whole' USING ERRCODE = '22023';
          END IF;

        """
    /// Every record of the batch inserted now: all are held as sent, and the read back is
    /// skipped. (`kept_records` counts what the insert returned, session by session.)
    static let publishShortcutV12 = """
          IF (SELECT coalesce(sum(k), 0) FROM unnest(kept_records) AS k) = n THEN
            RETURN QUERY SELECT n::int8, why;
            RETURN;
          END IF;

        """

    /// Version 12's record trigger: an answer's and an event's counts are carried to the one
    /// update of the session's row that every record makes, instead of an update of their own
    /// (an event that counts nothing changed the row by 0 and still wrote a new version of it).
    static let applyDeclarationsV12 = "  answered_change integer := 0;\n  pastes integer := 0;\n  focus_lost integer := 0;\n  exits integer := 0;\n"
    /// An answer's change to the count of answered questions, carried to the last update.
    static let applyAnswerCountV12 = """
              answered_change := (CASE WHEN now_answered THEN 1 ELSE 0 END) - (CASE WHEN coalesce(was, false) THEN 1 ELSE 0 END);
        """
    /// An event's counts, carried to the last update.
    static let applyEventCountsV12 = """
            ELSIF NEW.kind = 'event' THEN
              pastes := CASE WHEN b->>'kind' = 'paste_blocked' THEN 1 ELSE 0 END;
              focus_lost := CASE WHEN b->>'kind' = 'focus_lost' THEN 1 ELSE 0 END;
              exits := CASE WHEN b->>'kind' = 'exit_attempt' THEN 1 ELSE 0 END;
        """
    /// The time used, the last record seen, and the counts above, in one update.
    static let applyLastSeenV12 = """
            UPDATE carrel_sessions SET last_seen = now(), last_seq = greatest(last_seq, NEW.seq),
                saved_elapsed_seconds = coalesce(carrel_number(b->'elapsed', 0, 10000000), saved_elapsed_seconds),
                answered = answered + answered_change, paste_attempts = paste_attempts + pastes,
                focus_losses = focus_losses + focus_lost, exit_attempts = exit_attempts + exits
              WHERE session = NEW.session;
        """

    /// One change to an earlier version's text of a function (see `redefined`).
    enum FunctionEdit {
        /// `old` becomes `new`.
        case replace(_ old: String, with: String)
        /// From `from` up to the next `upTo` (which stays), the text becomes `with`.
        case span(from: String, upTo: String, with: String)
        /// `text` is put in just before `before`.
        case insert(_ text: String, before: String)
    }

    /// A function as an earlier version defined it (from its `CREATE [OR REPLACE] FUNCTION`
    /// to its `END $$;`), made again with `edits`, whose texts are as written there: a version
    /// that changes a long function says only what it changes, and the shipped version's text
    /// stays as it shipped. A function, or an edit's text, not found exactly once gives SQL
    /// that stops the migration with the reason; the versions' digests pin the result besides.
    static func redefined(_ signature: String, in sql: String, _ edits: [FunctionEdit]) -> String {
        let failed = "DO $$ BEGIN RAISE EXCEPTION 'carrel: the schema''s text for \(signature.prefix { $0 != "(" }) was not found'; END $$;"
        guard let name = sql.range(of: "FUNCTION " + signature),
              let end = sql.range(of: "END $$;", range: name.upperBound..<sql.endIndex) else { return failed }
        var text = "CREATE OR REPLACE " + sql[name.lowerBound..<end.upperBound]
        for edit in edits {
            let key: String
            switch edit {
            case let .replace(old, _): key = old
            case let .span(from, _, _): key = from
            case let .insert(_, before): key = before
            }
            guard text.components(separatedBy: key).count == 2, let found = text.range(of: key) else { return failed }
            switch edit {
            case let .replace(_, new):
                text.replaceSubrange(found, with: new)
            case let .span(_, upTo, new):
                guard let stop = text.range(of: upTo, range: found.upperBound..<text.endIndex) else { return failed }
                text.replaceSubrange(found.lowerBound..<stop.lowerBound, with: new)
            case let .insert(inserted, _):
                text.insert(contentsOf: inserted, at: found.lowerBound)
            }
        }
        return text
    }
}

extension SharedSchema {
    /// Version 14, a batch costs the store less again; nothing a seat or the console reads changes.
    ///
    /// - The two row triggers that ran before every record was inserted
    ///   (`carrel_records_cap`, `carrel_records_merged`: each a call with its own search path,
    ///   the second a query of the session's row) are gone: `carrel_publish`, the only writer of
    ///   `carrel_records`, leaves out what they left out, in its one insert (a record whose text,
    ///   as sent or as jsonb, is over 4 MB, or whose session or kind is too long) and in its
    ///   check of each session (a spare's request that a move took in, read under the row's
    ///   lock, as the trigger read it after the lock). What either keeps is the same; a record
    ///   the store could never keep (no body or no kind, or text that is no JSON in a record it
    ///   leaves out anyway) no longer fails its whole batch (version 13 raised an error): its
    ///   other records are kept, as no error may hold a seat's outbox behind a record the store
    ///   will never take.
    /// - `carrel_publish` reads a session's row once before its proof (it read it twice), inserts
    ///   without reading back what it inserted (the trigger counts the records since version 13),
    ///   and gives its row without a query.
    /// - The functions a seat's begin, answers, commands and pulse run keep one plan of each
    ///   statement for their server process from the first time they run it
    ///   (`plan_cache_mode = force_generic_plan`): PostgreSQL otherwise plans a statement again
    ///   for each of its first five runs, so a begin planned again every statement its seat's
    ///   rehearsal had already planned (about a quarter of the begin's time on the store).
    ///   Each of those statements finds its rows through a key or an index, which a plan made
    ///   without the values uses as well.
    /// - `carrel_token_hash` is STABLE (`convert_to` is): PostgreSQL inlines it into the
    ///   statement that calls it instead of running it as a query of its own at each call
    ///   (a SQL function it cannot inline is parsed again every time).
    static let version14LighterBatches = """
        DROP TRIGGER carrel_records_cap ON carrel_records;
        DROP TRIGGER carrel_records_merged ON carrel_records;
        DROP FUNCTION carrel_records_cap();
        DROP FUNCTION carrel_records_merged();

        ALTER FUNCTION carrel_token_hash(text) STABLE;

        \(redefined("carrel_publish(p_sessions text[]", in: version13BatchedRecords, [
            .replace("  kept_sessions text[];\n  kept_records int8[];\n  kept_bytes int8[];\n", with: ""),
            .insert("  merged boolean;\n  inserted bigint;\n", before: "BEGIN\n  -- A batch of records"),
            .replace("    SELECT c.token_hash INTO h FROM carrel_sessions c WHERE c.session = u.s;\n    proven := FOUND",
                     with: "    proven := FOUND"),
            .replace("    IF NOT EXISTS (SELECT 1 FROM carrel_sessions c WHERE c.session = u.s) THEN\n      BEGIN",
                     with: "    SELECT c.token_hash INTO h FROM carrel_sessions c WHERE c.session = u.s;\n    IF NOT FOUND THEN\n      BEGIN"),
            .replace("        NULL;\n      END;\n    END IF;\n",
                     with: "        NULL;\n      END;\n      SELECT c.token_hash INTO h FROM carrel_sessions c WHERE c.session = u.s;\n    END IF;\n"),
            .replace("      SELECT c.records_count, c.records_bytes INTO held_records, held_bytes\n",
                     with: "      SELECT c.records_count, c.records_bytes, c.status = 'merged' INTO held_records, held_bytes, merged\n"),
            .replace("      ELSE\n        allowed := allowed || u.s;\n", with: publishMergedV14),
            .span(from: "  WITH inserted AS (", upTo: "  RETURN QUERY SELECT (SELECT count(*)", with: publishInsertV14),
        ]))

        ALTER FUNCTION carrel_publish(text[], text[], text[], int8[], text[], timestamptz[], text[], text[])
          SET plan_cache_mode = force_generic_plan;
        ALTER FUNCTION carrel_apply_records() SET plan_cache_mode = force_generic_plan;
        ALTER FUNCTION carrel_live(text, text, text, text, double precision) SET plan_cache_mode = force_generic_plan;
        ALTER FUNCTION carrel_pulse(text, text, text, double precision) SET plan_cache_mode = force_generic_plan;
        ALTER FUNCTION carrel_proven(text, text, text) SET plan_cache_mode = force_generic_plan;
        ALTER FUNCTION carrel_seat_commands(text, text, text, bigint, boolean) SET plan_cache_mode = force_generic_plan;
        ALTER FUNCTION carrel_sweep_due() SET plan_cache_mode = force_generic_plan
        """

    /// A session a move merged into another is proven (its seat still reads the move with its
    /// token) but keeps nothing.
    static let publishMergedV14 = """
              ELSIF NOT merged THEN
                -- A spare's request that a move took in is no session of its own: no status or
                -- result sent under it brings it back as a second session of the candidate.
                allowed := allowed || u.s;

        """

    /// The batch's one insert, with what the row triggers left out before version 14 left out
    /// here; when every record went in, its row at once.
    static let publishInsertV14 = """
          INSERT INTO carrel_records (session, seq, kind, at, body, body_text, mac)
            SELECT r.s, r.q, r.k, r.a, r.b::jsonb, r.b, nullif(r.m, '')
            FROM unnest(p_sessions, p_seqs, p_kinds, p_ats, p_bodies, p_macs) WITH ORDINALITY AS r(s, q, k, a, b, m, o)
            WHERE r.s = ANY(allowed)
              -- A record over 4 MB (its text as sent, or as jsonb) and a session or kind too long
              -- are not kept (as carrel_records_cap left them out before version 14).
              AND octet_length(r.b) <= 4194304 AND octet_length(r.b::jsonb::text) <= 4194304
              AND octet_length(r.s) <= 200 AND octet_length(r.k) <= 40
            ORDER BY r.o
          ON CONFLICT DO NOTHING;
          -- The records kept are counted against each session's quota by the record trigger, in
          -- its one update of the session's row (version 13).
          GET DIAGNOSTICS inserted = ROW_COUNT;
          IF inserted = n THEN
            kept := n;
            refused := why;
            RETURN NEXT;
            RETURN;
          END IF;

        """
}

extension SharedSchema {
    /// `carrel_publish`: a batch of records, each session's checked and kept within its quota.
    /// Version 5 defines it and version 12 again, changing only how a session is proven and
    /// its quota read (`proof`), the variables that needs (`declarations`), what it answers
    /// before reading the batch back (`shortcut`), which records that reading counts
    /// (`keptOnly`), the order of the sessions (`loopOrder`), the arrays' checks (`checks`) and
    /// the function's settings; both versions' text comes from here, so the rest is written once.
    static func publishFunction(_ create: String, settings: String = "", checks: String = "", declarations: String = "",
                                loopOrder: String = "", proof: String, shortcut: String = "", keptOnly: String = "") -> String {
        """
        \(create) FUNCTION carrel_publish(p_sessions text[], p_tokens text[], p_previous text[], p_seqs int8[], p_kinds text[],
                                       p_ats timestamptz[], p_bodies text[], p_macs text[])
          RETURNS TABLE (kept int8, refused text)
          LANGUAGE plpgsql SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp\(settings) AS $$
        DECLARE
          n integer := coalesce(array_length(p_sessions, 1), 0);
          u record;
          allowed text[] := '{}';
          why text;
          first_body text;
          kept_sessions text[];
          kept_records int8[];
          kept_bytes int8[];
        \(declarations)BEGIN
          -- A batch of records: those of each session its seat proved, within the session's
          -- quota, are kept (a record already there as sent is skipped); the others are not,
          -- and `refused` says why. `kept` is how many of the batch the store holds as sent
          -- (same text, same MAC), as carrel_seat_kept counted it. No error stops a seat's
          -- outbox behind a record the store will never take.
        \(checks)  IF n > 1000 OR n <> coalesce(array_length(p_tokens, 1), 0) OR n <> coalesce(array_length(p_previous, 1), 0)
             OR n <> coalesce(array_length(p_seqs, 1), 0) OR n <> coalesce(array_length(p_kinds, 1), 0)
             OR n <> coalesce(array_length(p_ats, 1), 0) OR n <> coalesce(array_length(p_bodies, 1), 0)
             OR n <> coalesce(array_length(p_macs, 1), 0) THEN
            RAISE EXCEPTION 'carrel: a batch is at most 1000 records, each given whole' USING ERRCODE = '22023';
          END IF;
          -- Bytes count twice: the store keeps a record's text as sent and as jsonb.
          FOR u IN SELECT x.s, min(x.t) AS t, min(x.p) AS p, count(*) AS records, 2 * sum(octet_length(x.b)) AS bytes
                   FROM unnest(p_sessions, p_tokens, p_previous, p_bodies) AS x(s, t, p, b) GROUP BY x.s\(loopOrder) LOOP
            -- A session no seat announced (a demo's, one published after the store lost its
            -- row) is made by its own first record, as carrel_hello makes it, within the quota.
            IF NOT EXISTS (SELECT 1 FROM carrel_sessions c WHERE c.session = u.s) THEN
              BEGIN
                SELECT x.b INTO first_body FROM unnest(p_sessions, p_kinds, p_bodies) AS x(s, k, b)
                  WHERE x.s = u.s AND x.k = 'session' LIMIT 1;
                IF first_body IS NOT NULL THEN
                  PERFORM carrel_hello(u.s, first_body::jsonb, u.t);
                END IF;
              EXCEPTION WHEN others THEN
                -- Not made (a room at its quota, a token of the wrong form): refused below.
                NULL;
              END;
            END IF;
        \(proof)
          END LOOP;
          WITH inserted AS (
              INSERT INTO carrel_records (session, seq, kind, at, body, body_text, mac)
                SELECT r.s, r.q, r.k, r.a, r.b::jsonb, r.b, nullif(r.m, '')
                FROM unnest(p_sessions, p_seqs, p_kinds, p_ats, p_bodies, p_macs) WITH ORDINALITY AS r(s, q, k, a, b, m, o)
                WHERE r.s = ANY(allowed)
                ORDER BY r.o
              ON CONFLICT DO NOTHING
              RETURNING carrel_records.session AS s, 2 * octet_length(carrel_records.body_text) AS bytes),
            per AS (SELECT i.s, count(*) AS records, coalesce(sum(i.bytes), 0) AS bytes FROM inserted i GROUP BY i.s)
          SELECT array_agg(per.s), array_agg(per.records), array_agg(per.bytes) INTO kept_sessions, kept_records, kept_bytes FROM per;
          FOR i IN 1 .. coalesce(array_length(kept_sessions, 1), 0) LOOP
            UPDATE carrel_sessions c SET records_count = c.records_count + kept_records[i], records_bytes = c.records_bytes + kept_bytes[i]
              WHERE c.session = kept_sessions[i];
          END LOOP;
        \(shortcut)  RETURN QUERY SELECT (SELECT count(*) FROM unnest(p_sessions, p_seqs, p_bodies, p_macs) AS x(s, q, b, m)
            WHERE\(keptOnly) EXISTS (SELECT 1 FROM carrel_records r WHERE r.session = x.s AND r.seq = x.q AND coalesce(r.mac, '') = x.m
                            AND r.body_text = x.b)), why;
        END $$;
        """
    }

    /// Version 5's proof and quota: `carrel_proven`, then the quota by `carrel_admitted`.
    static let publishProofV5 = """
            IF NOT carrel_proven(u.s, u.t, u.p) THEN
              why := 'this seat has not proven it holds session ' || left(u.s, 40);
            ELSIF NOT EXISTS (SELECT 1 FROM carrel_sessions c WHERE c.session = u.s
                                AND c.records_count + u.records <= CASE WHEN carrel_admitted(u.s) THEN 1000000 ELSE 50000 END
                                AND c.records_bytes + u.bytes <= CASE WHEN carrel_admitted(u.s) THEN 536870912 ELSE 33554432 END) THEN
              why := 'session ' || left(u.s, 40) || ' is at its quota of records in the store';
            ELSE
              allowed := allowed || u.s;
            END IF;
        """
}

extension SharedSchema {
    /// `carrel_apply_record`, the trigger that applies a record to the session's row, its
    /// answers, flags and result. Version 1 defines it and version 12 again, changing only how
    /// an answer's and an event's counts reach the session's row (`answerCount`,
    /// `eventCounts`, with the variables they need in `declarations`) and the last update of
    /// the row (`lastSeen`); both versions' text comes from here, so the rest is written once.
    static func applyRecordFunction(_ create: String, declarations: String = "", answerCount: String, eventCounts: String,
                                    lastSeen: String) -> String {
        """
        \(create) FUNCTION carrel_apply_record() RETURNS trigger
          LANGUAGE plpgsql SECURITY DEFINER SET search_path = @SCHEMA@, pg_temp AS $$
        DECLARE
          b jsonb := NEW.body;
          was boolean;
          now_answered boolean;
        \(declarations)BEGIN
          -- Records come from seats, whose role anyone at a seat may use: each one is checked,
          -- and one that cannot be applied is kept as it came but changes nothing else (no
          -- error reaches the seat, whose later records would otherwise wait behind it).
          BEGIN
            IF jsonb_typeof(b) <> 'object' THEN
              RETURN NULL;
            END IF;
            IF NEW.kind = 'session' THEN
              INSERT INTO carrel_sessions (session, room, seat, candidate, assessment_id, assessment_title, fingerprint,
                  total, time_allowed_seconds, host, pid, status, started_at, lock_key, last_seq)
                VALUES (NEW.session, left(coalesce(b->>'room', ''), 200), left(coalesce(b->>'seat', ''), 200),
                  left(b->>'candidate', 200), left(coalesce(b->>'assessment_id', ''), 200),
                  left(coalesce(b->>'assessment_title', ''), 500), left(coalesce(b->>'fingerprint', ''), 200),
                  coalesce(carrel_number(b->'total', 0, 1000000), 0)::integer,
                  carrel_number(b->'time_allowed_seconds', 0, 10000000), left(b->>'host', 200),
                  carrel_number(b->'pid', 0, 2147483647)::integer, 'active', NEW.at, hashtextextended(NEW.session, 0), NEW.seq)
                ON CONFLICT (session) DO UPDATE SET room = excluded.room, seat = excluded.seat, candidate = excluded.candidate,
                  assessment_id = excluded.assessment_id, assessment_title = excluded.assessment_title,
                  fingerprint = excluded.fingerprint, total = excluded.total, time_allowed_seconds = excluded.time_allowed_seconds,
                  host = excluded.host, pid = excluded.pid, status = 'active', started_at = excluded.started_at
                WHERE carrel_sessions.status = 'not_started';
            ELSIF NEW.kind = 'answer' AND jsonb_typeof(b->'item') = 'string' THEN
              now_answered := coalesce(jsonb_typeof(b->'answered') = 'boolean' AND (b->>'answered')::boolean, false);
              SELECT answered INTO was FROM carrel_answers WHERE session = NEW.session AND item = b->>'item';
              INSERT INTO carrel_answers (session, item, response, answered, at)
                VALUES (NEW.session, b->>'item', b->'response', now_answered, NEW.at)
                ON CONFLICT (session, item) DO UPDATE
                  SET response = excluded.response, answered = excluded.answered, at = excluded.at;
        \(answerCount)
            ELSIF NEW.kind = 'flag' AND jsonb_typeof(b->'item') = 'string' THEN
              IF jsonb_typeof(b->'on') = 'boolean' AND (b->>'on')::boolean THEN
                INSERT INTO carrel_flags (session, item) VALUES (NEW.session, b->>'item') ON CONFLICT DO NOTHING;
                IF FOUND THEN UPDATE carrel_sessions SET flagged = flagged + 1 WHERE session = NEW.session; END IF;
              ELSE
                DELETE FROM carrel_flags WHERE session = NEW.session AND item = b->>'item';
                IF FOUND THEN UPDATE carrel_sessions SET flagged = flagged - 1 WHERE session = NEW.session; END IF;
              END IF;
        \(eventCounts)
            ELSIF NEW.kind = 'status' AND b->>'status' IN ('active', 'review', 'ending', 'ended', 'interrupted', 'abandoned')
                  AND (b->>'end_reason' IS NULL OR b->>'end_reason' IN ('submitted', 'timed_out', 'ended_by_proctor', 'ended_by_candidate')) THEN
              UPDATE carrel_sessions SET status = b->>'status', end_reason = b->>'end_reason',
                  ended_at = CASE WHEN jsonb_typeof(b->'ended_at') = 'string' THEN (b->>'ended_at')::timestamptz END
                WHERE session = NEW.session;
            ELSIF NEW.kind = 'resumed' THEN
              UPDATE carrel_sessions SET status = 'active', interruptions = interruptions + 1,
                  pid = carrel_number(b->'pid', 0, 2147483647)::integer
                WHERE session = NEW.session;
            ELSIF NEW.kind = 'result' AND jsonb_typeof(b->'json') = 'string' THEN
              INSERT INTO carrel_results (session, json) VALUES (NEW.session, b->>'json')
                ON CONFLICT (session) DO UPDATE SET json = excluded.json;
            END IF;
            -- The time used as the seat's journal saved it: its own record ('progress'), or
            -- carried by an answer or a flag saved with it.
        \(lastSeen)
          EXCEPTION WHEN others THEN
            -- Kept, not applied (see above).
            NULL;
          END;
          RETURN NULL;
        END $$;
        """
    }

    /// Version 1: an answer's count updates the session's row on its own.
    static let applyAnswerCountV1 = """
              UPDATE carrel_sessions
                SET answered = answered + (CASE WHEN now_answered THEN 1 ELSE 0 END) - (CASE WHEN coalesce(was, false) THEN 1 ELSE 0 END)
                WHERE session = NEW.session;
        """
    /// Version 1: every event updates the session's counters, by 0 for most.
    static let applyEventCountsV1 = """
            ELSIF NEW.kind = 'event' THEN
              UPDATE carrel_sessions SET
                  paste_attempts = paste_attempts + (CASE WHEN b->>'kind' = 'paste_blocked' THEN 1 ELSE 0 END),
                  focus_losses = focus_losses + (CASE WHEN b->>'kind' = 'focus_lost' THEN 1 ELSE 0 END),
                  exit_attempts = exit_attempts + (CASE WHEN b->>'kind' = 'exit_attempt' THEN 1 ELSE 0 END)
                WHERE session = NEW.session;
        """
    /// Version 1: the time used and the last record seen.
    static let applyLastSeenV1 = """
            UPDATE carrel_sessions SET last_seen = now(), last_seq = greatest(last_seq, NEW.seq),
                saved_elapsed_seconds = coalesce(carrel_number(b->'elapsed', 0, 10000000), saved_elapsed_seconds)
              WHERE session = NEW.session;
        """
}

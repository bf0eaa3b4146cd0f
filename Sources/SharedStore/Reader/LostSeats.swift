import AssessmentKit
import Foundation
import PostgresNIO
import SessionKit

extension SharedReader {
    /// Every record the store keeps of `session`, in store order (the proctor reads them all).
    public func sessionRecords(_ session: String) async throws -> [StoreRecord] {
        let connection = self.connection
        let logger = self.logger
        let rows = try await StoreCall.guarded(connection, timeout: 60) { try await StoreCall.rows(connection, """
            SELECT seq::text, kind, extract(epoch FROM at)::text, body_text, mac FROM carrel_records
            WHERE session = \(session) ORDER BY seq, received_at
            """, logger: logger) }
        return rows.compactMap { row in
            guard let t = StoreRows.texts(row), t.count == 5, let seq = t[0].flatMap({ Int64($0) }), let kind = t[1],
                  let at = StoreRows.date(t[2]) else { return nil }
            return StoreRecord(seq: seq, kind: kind, at: at, body: t[3], mac: t[4])
        }
    }

    /// Writes `records` as `session`'s own next records, after its store number `lastSeq` and
    /// chain place `lastLink`, authenticated with its key `key` and proved with the token that
    /// key derives (what its seat would have written; the proctor derives the key from the
    /// passphrase): the result of a seat that will not come back. True when the store kept
    /// them all.
    public func publish(as session: String, key: [UInt8], lastSeq: Int64, lastLink: Int64, at: Date,
                        records: [(kind: String, body: String)]) async throws -> Bool {
        let token = SessionMAC.storeToken(key: key, session: session)
        var seqs: [Int64] = [], kinds: [String] = [], bodies: [String] = [], macs: [String] = [], ats: [Date] = []
        for (i, record) in records.enumerated() {
            let seq = lastSeq + Int64(i) + 1
            let link = lastLink + Int64(i) + 1
            seqs.append(seq)
            kinds.append(record.kind)
            bodies.append(record.body)
            ats.append(at)
            macs.append(SessionMAC.record(key: key, session: session, seq: seq, link: link, kind: record.kind, body: record.body))
        }
        let sessions = Array(repeating: session, count: records.count)
        let tokens = Array(repeating: token, count: records.count)
        let previous = Array(repeating: "", count: records.count)
        let (s, k, a, b, m) = (seqs, kinds, ats, bodies, macs)
        let connection = self.connection
        let logger = self.logger
        let kept = try await StoreCall.guarded(connection, timeout: 30) { try await StoreCall.value(connection, """
            SELECT kept FROM carrel_publish(\(sessions)::text[], \(tokens)::text[], \(previous)::text[], \(s)::int8[],
                                            \(k)::text[], \(a)::timestamptz[], \(b)::text[], \(m)::text[])
            """, as: Int64.self, logger: logger) }
        return kept == Int64(records.count)
    }
}

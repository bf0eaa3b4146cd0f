import AssessmentKit
import Foundation
import PostgresNIO
import SessionKit

extension SeatRoom {
    /// The records the store keeps of `session`, for the seat that proves it with `token` (a
    /// spare continuing it), in store order. A record whose row cannot be read is left out:
    /// the session's chain then names its place as missing.
    public static func records(_ url: SharedURL, session: String, token: String) async throws -> [StoreRecord] {
        var out: [StoreRecord] = []
        var after: Int64 = 0
        while true {
            let from = after
            let page: [StoreRecord] = try await withConnection(url) { c, logger in
                let rows = try await StoreCall.rows(c, """
                    SELECT seq::text, kind, at_epoch::text, body, mac FROM carrel_seat_records(\(session), \(token), \(from))
                    """, logger: logger)
                return rows.compactMap { row in
                    guard let t = StoreRows.texts(row), t.count == 5, let seq = t[0].flatMap({ Int64($0) }), let kind = t[1],
                          let at = StoreRows.date(t[2]) else { return nil }
                    return StoreRecord(seq: seq, kind: kind, at: at, body: t[3], mac: t[4])
                }
            }
            out += page
            guard page.count >= 2000, let last = page.last?.seq, last > after, out.count < 2_000_000 else { return out }
            after = last
        }
    }

    /// What became of `session` when its seat's token no longer proves it: "moved SEAT" (it
    /// continues at another seat) or "lost" (the proctor ended it, the seat lost); nil when
    /// nothing did, or the store cannot say.
    public static func fate(_ url: SharedURL, session: String, tokens: [String]) async -> SessionFate? {
        // Best effort: a store that cannot be asked says nothing, and the seat goes on as before.
        let words: String? = try? await withConnection(url) { c, logger in
            for token in tokens {
                if let fate = try await StoreCall.value(c, "SELECT carrel_session_fate(\(session), \(token))", as: String?.self,
                                                        logger: logger) ?? nil {
                    return fate
                }
            }
            return nil
        }
        return words.flatMap(SessionFate.init(words:))
    }
}

/// What the store says became of a session its seat no longer holds.
public enum SessionFate: Sendable, Equatable {
    /// The proctor moved it to another seat, where it continues.
    case moved(to: String)
    /// The proctor ended it: its seat was lost.
    case lost

    /// As the store says it ("moved S1", "lost"): what `SessionPublishing.fate` gives the session.
    public var words: String {
        switch self {
        case let .moved(seat): return "moved \(seat)"
        case .lost: return "lost"
        }
    }

    public init?(words: String) {
        if words == "lost" { self = .lost; return }
        guard words.hasPrefix("moved "), words.count > 6 else { return nil }
        self = .moved(to: TerminalSafety.visible(String(words.dropFirst(6).prefix(64)), keepLineBreaks: false))
    }
}

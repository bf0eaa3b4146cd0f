import Foundation
import GRDB

/// One journal row read value by value. Each value is checked for its kind and its range; one
/// that is not what Carrel writes (a journal edited by hand, a damaged disk) is reported as
/// damage naming the session and the column, never guessed around, and never a crash (GRDB's
/// subscripts stop the process on a value they cannot convert, so they are not used here).
struct JournalFields {
    let row: Row
    /// Whose row it is, for messages ("session 1a2b…").
    let owner: String

    /// The value of `column` as SQLite holds it (NULL when the column is missing).
    func value(_ column: String) -> DatabaseValue {
        // Any value converts to a DatabaseValue: only a missing column fails, read as NULL.
        (try? row.decode(DatabaseValue.self, forColumn: column)) ?? .null
    }

    func isNull(_ column: String) -> Bool { value(column).isNull }

    func damage(_ column: String, _ expected: String) -> JournalCorruption {
        JournalCorruption(what: "\(owner): \(column) holds \(Self.describe(value(column))) where Carrel keeps \(expected)")
    }

    func text(_ column: String) throws(JournalCorruption) -> String {
        guard case let .string(text) = value(column).storage else { throw damage(column, "text") }
        return text
    }

    func optionalText(_ column: String) throws(JournalCorruption) -> String? {
        isNull(column) ? nil : try text(column)
    }

    func integer(_ column: String, in range: ClosedRange<Int64>) throws(JournalCorruption) -> Int64 {
        guard case let .int64(n) = value(column).storage, range.contains(n) else {
            throw damage(column, "a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return n
    }

    func number(_ column: String, in range: ClosedRange<Double>) throws(JournalCorruption) -> Double {
        let number: Double
        switch value(column).storage {
        case let .int64(n): number = Double(n)
        case let .double(d): number = d
        default: throw damage(column, "a number")
        }
        guard number.isFinite, range.contains(number) else {
            throw damage(column, "a number from \(Self.bound(range.lowerBound)) to \(Self.bound(range.upperBound))")
        }
        return number
    }

    /// A moment between 1970 and the end of year 9999 (what Carrel writes: its own clock).
    func date(_ column: String) throws(JournalCorruption) -> Date {
        guard case .string = value(column).storage, let date = Date.fromDatabaseValue(value(column)),
              Self.dates.contains(date.timeIntervalSince1970) else {
            throw damage(column, "a date and time between 1970 and 9999")
        }
        return date
    }

    func optionalDate(_ column: String) throws(JournalCorruption) -> Date? {
        isNull(column) ? nil : try date(column)
    }

    static func bound(_ value: Double) -> String { abs(value) < 1e15 ? String(Int(value)) : "\(value)" }

    static let dates: ClosedRange<Double> = 0...253_402_300_799

    /// What a value is, for a message: its kind and the start of any text (the line is
    /// sanitised where it is printed).
    static func describe(_ value: DatabaseValue) -> String {
        switch value.storage {
        case .null: return "nothing (NULL)"
        case let .int64(n): return "the number \(n)"
        case let .double(d): return "the number \(d)"
        case let .string(s): return s.count > 40 ? "the text \"\(s.prefix(40))…\"" : "the text \"\(s)\""
        case let .blob(data): return "\(data.count) bytes of binary data"
        }
    }
}

extension JournalCorruption {
    /// What is damaged when `error` says the journal is (a value Carrel did not write, or a
    /// file SQLite finds corrupt or not a database); nil for any other failure.
    public static func damage(in error: any Error) -> String? {
        if let damage = error as? JournalCorruption { return damage.what }
        if let error = error as? DatabaseError, error.resultCode == .SQLITE_CORRUPT || error.resultCode == .SQLITE_NOTADB {
            return error.message ?? "SQLite finds the file corrupt"
        }
        return nil
    }
}

extension Journal {
    /// Runs a read of `what` (belonging to `owner`): a row GRDB cannot decode becomes damage
    /// naming them. The decoder's own message is not passed on (it prints the whole row).
    static func checked<T>(_ owner: String, _ what: String, _ read: () throws -> T) throws -> T {
        do {
            return try read()
        } catch is RowDecodingError {
            throw JournalCorruption(what: "\(owner): \(what) holds a value of the wrong kind")
        }
    }
}

import Foundation

extension Roster {
    /// RFC 4180 CSV, read byte by byte (every byte that matters — comma, quote, CR, LF — is
    /// ASCII, so it never falls inside a UTF-8 sequence). Lenient where the meaning is plain:
    /// spaces before an opening quote or after a closing one are dropped, a quote inside an
    /// unquoted field is kept as a quote, a lone CR ends a line as CR LF and LF do.
    enum CSVReader {
        struct Record {
            /// The line the record starts on.
            var line: Int
            var fields: [String]

            /// An empty line, or one of empty fields only (`,,,`, as spreadsheets write the
            /// rows below a table).
            var isBlank: Bool { fields.allSatisfy { $0.trimmingCharacters(in: .whitespaces).isEmpty } }
        }

        static func parse(_ bytes: ArraySlice<UInt8>) -> (records: [Record], problems: [RosterProblem]) {
            var parser = Parser(bytes)
            parser.run()
            return (parser.records, parser.problems)
        }

        /// Where the reader is in the bytes, and in the record and field it is reading.
        struct Parser {
            static let quote = UInt8(ascii: "\""), comma = UInt8(ascii: ","), cr: UInt8 = 0x0D, lf: UInt8 = 0x0A, space: UInt8 = 0x20
            let bytes: ArraySlice<UInt8>
            var i: Int
            var records: [Record] = []
            var problems: [RosterProblem] = []
            var fields: [String] = []
            var field: [UInt8] = []
            var line = 1, recordLine = 1, quoteLine = 1
            var inQuotes = false, quoted = false, closed = false, strayReported = false

            init(_ bytes: ArraySlice<UInt8>) {
                self.bytes = bytes
                i = bytes.startIndex
            }

            mutating func endField() {
                fields.append(String(decoding: field, as: UTF8.self))
                field.removeAll(keepingCapacity: true)
                quoted = false
                closed = false
            }

            mutating func endRecord() {
                records.append(Record(line: recordLine, fields: fields))
                fields.removeAll(keepingCapacity: true)
                strayReported = false
            }

            mutating func run() {
                while i < bytes.endIndex {
                    if inQuotes { readQuoted() } else { readUnquoted() }
                }
                if inQuotes {
                    problems.append(RosterProblem(line: quoteLine, message: "unterminated quote: a quoted field starts on this line and is never closed"))
                } else if !fields.isEmpty || !field.isEmpty || quoted {
                    endField()
                    endRecord()
                }
            }

            /// Whether the byte at `i` is the CR of a CR LF.
            var atCRLF: Bool { bytes[i] == Self.cr && i + 1 < bytes.endIndex && bytes[i + 1] == Self.lf }

            /// One step inside a quoted field.
            mutating func readQuoted() {
                let b = bytes[i]
                if b == Self.quote {
                    if i + 1 < bytes.endIndex && bytes[i + 1] == Self.quote {
                        field.append(Self.quote)
                        i += 2
                    } else {
                        inQuotes = false
                        closed = true
                        i += 1
                    }
                    return
                }
                // A line break inside a quoted field is kept in it (CR LF counted once).
                if b == Self.lf || (b == Self.cr && !atCRLF) { line += 1 }
                field.append(b)
                i += 1
            }

            /// One step outside quotes.
            mutating func readUnquoted() {
                let b = bytes[i]
                switch b {
                case Self.comma:
                    endField()
                    i += 1
                case Self.cr, Self.lf:
                    let crlf = atCRLF
                    endField()
                    endRecord()
                    i += crlf ? 2 : 1
                    line += 1
                    recordLine = line
                case Self.quote where !quoted && field.allSatisfy({ $0 == Self.space }):
                    field.removeAll(keepingCapacity: true)
                    inQuotes = true
                    quoted = true
                    quoteLine = line
                    i += 1
                default:
                    if closed {
                        i += 1
                        if b == Self.space { return }
                        if !strayReported {
                            problems.append(RosterProblem(line: recordLine, message:
                                "text after the closing quote of field \(fields.count + 1) (a quote inside a quoted field is written as two quotes)"))
                            strayReported = true
                        }
                        return
                    }
                    field.append(b)
                    i += 1
                }
            }
        }
    }
}

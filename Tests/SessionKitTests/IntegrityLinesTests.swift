import Foundation
import Testing
@testable import SessionKit

/// The integrity report's lines reach a teacher's terminal (`results show`): what a student
/// put in them (a DISPLAY of their choosing named in a pasteboard's outcome) is shown, never
/// obeyed.
@Suite("Integrity report lines")
struct IntegrityLinesTests {
    @Test func aStudentsTextInAPasteboardOutcomeCannotDriveTheTerminal() {
        let display = ":0\u{1B}]52;c;ZXZpbA==\u{07}\r\u{1B}[2KX11: cleared everything\n"
        let events = [JournalEvent(at: Date(), kind: "pasteboard_cleared",
                                   detail: "on entry — X11: failed — xsel could not reach display \(display)")]
        let lines = IntegrityReport(events: events, interruptions: 0).lines
        let text = lines.joined(separator: "\n")
        #expect(text.contains("could not reach display :0"), "\(lines)")
        #expect(!text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || $0.value == 0x7F }, "\(lines)")
        #expect(lines.count == IntegrityReport(events: events, interruptions: 0).unsanitisedLines.count)
    }
}

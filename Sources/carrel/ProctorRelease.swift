import ArgumentParser
import AssessmentKit
import Foundation
import SessionKit
import SharedStore

/// `carrel proctor release`: a candidate held after five wrong codes may try again.
struct ProctorRelease: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "release",
        abstract: "Let a candidate held after too many wrong codes try again.",
        discussion: """
            With a roster that gives each candidate a code, a seat names a candidate only for the \
            right number and code; after five wrong codes for one candidate, that candidate is \
            held and every seat is told to ask the proctor. Check who is at the seat (their card), \
            then release the candidate here: they get five more tries.
            """)

    @OptionGroup var store: StoreOption
    @OptionGroup var roomOption: RoomOption
    @Option(help: ArgumentHelp("The candidate number held.", valueName: "number")) var candidate: String

    var roomName: String? { roomOption.name }

    func validate() throws {
        let number = candidate.trimmingCharacters(in: .whitespaces)
        if number.isEmpty || number.count > Roster.candidateMaximumCharacters || TerminalSafety.firstUnsafe(in: number) != nil {
            throw ValidationError("--candidate: give the candidate number as the roster has it")
        }
    }

    func run() async throws {
        try await reportingFailures {
            let url = try store.required(by: "proctor release")
            let (room, number) = (roomName ?? "", candidate.trimmingCharacters(in: .whitespaces))
            let v = { (t: String) in TerminalSafety.visible(t, keepLineBreaks: false) }
            let released = try await ProctorStore.using(url, doing: "release candidate \(number) in room \(room)") {
                try await $0.releaseCandidate(room: room, candidate: number)
            }
            guard released else {
                throw CarrelFailure(status: .usage, message: "candidate \(v(number)) is not on the roster of open room \(v(room))")
            }
            FileOutput.standardOutput.write("Candidate \(v(number)) released in room \(v(room)): five more tries.\n")
        }
    }
}

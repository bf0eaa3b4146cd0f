// What the benchmark programs share: a session's edges with nothing to clear or refuse (a
// benchmark measures the journal and the store, not the probes), and one way to give up.
#if canImport(Glibc)
import Glibc
#endif
import AssessmentKit
import Foundation
import Lockdown
import SessionKit

/// Says why on standard error, prefixed with the program's name, and exits 1.
public func fail(_ program: String, _ why: String) -> Never {
    FileHandle.standardError.write(Data("\(program): \(why)\n".utf8))
    exit(1)
}

/// No pasteboard to clear.
public struct NoPasteboards: PasteboardClearer {
    public init() {}
    public func clearAndDescribe() -> [String] { [] }
}

/// Nothing refused, no tracer seen.
public struct OpenGate: EnvironmentGate {
    public init() {}
    public func refusals(policy: RestrictionPolicy, needsTerminal: Bool) -> [String] { [] }
    public func attachedTracer() -> Int? { nil }
}

extension SessionContext {
    /// A session's context in `directory` with the inert edges above and no signal guard.
    public static func bench(_ directory: String) -> SessionContext {
        var c = SessionContext.system(location: StateLocation(stateDirectory: directory), environment: [:], needsTerminal: false)
        c.signals = { nil }
        c.pasteboards = NoPasteboards()
        c.gate = OpenGate()
        return c
    }
}

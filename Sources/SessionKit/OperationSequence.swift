/// Ordered steps that can each be undone (like Safe Exam Browser's operation sequence):
/// a failing step undoes the ones before it, in reverse; `undoAll` ends the sequence.
public final class OperationSequence {
    public struct Step {
        public var name: String
        public var perform: () throws -> Void
        public var undo: () -> Void
        public init(_ name: String, perform: @escaping () throws -> Void, undo: @escaping () -> Void = {}) {
            self.name = name
            self.perform = perform
            self.undo = undo
        }
    }

    public struct Failure: Error {
        public var step: String
        public var error: any Error
    }

    private var done: [Step] = []
    public private(set) var completed: [String] = []

    public init() {}

    /// Runs `steps` in order; on a failure undoes the completed ones in reverse and throws.
    public func run(_ steps: [Step]) throws(Failure) {
        for step in steps {
            do {
                try step.perform()
                done.append(step)
                completed.append(step.name)
            } catch {
                undoAll()
                throw Failure(step: step.name, error: error)
            }
        }
    }

    /// Undoes every completed step, most recent first. Safe to call twice.
    public func undoAll() {
        while let step = done.popLast() {
            step.undo()
        }
    }
}

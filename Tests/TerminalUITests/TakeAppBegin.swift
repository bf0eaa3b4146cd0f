import AssessmentKit
import SessionKit
import SessionTestSupport
@testable import TerminalUI

extension MemoryWorld {
    /// What a take flow in memory begins when the student confirms: a new session of
    /// `assessment` for Ada, with the terminal's reports on while it runs, as `carrel take`.
    func beginning(_ assessment: Assessment, _ source: StoredAssessment) -> (TakeApp) throws(SessionError) -> SessionRuntime? {
        let context = self.context
        return { app throws(SessionError) in
            try SessionRuntime.begin(assessment: assessment, source: source, candidate: "Ada", extraTime: .none,
                                     context: context, enterUI: { app.terminal.setReports(true) },
                                     leaveUI: { app.terminal.setReports(false) })
        }
    }
}

import AssessmentKit
import Lockdown

/// Clears every pasteboard when the policy says so and reports each backend's outcome as a
/// `pasteboard_cleared` detail ("on exit — tmux: cleared 1 buffer"), for every clearing path.
enum PasteboardClearing {
    static func run(policy: RestrictionPolicy, pasteboards: Pasteboards, when: String, log: (String) -> Void) {
        guard policy.pasteboards == .clear else { return }
        for report in pasteboards.clearAll() {
            log("\(when) — \(report.detail)")
        }
    }
}

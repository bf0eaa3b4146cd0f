import AssessmentMode
import Foundation
import Testing

extension AssessmentdRootTests {
    /// The lab's store as the service was told it wins over the one a session names: a student
    /// who types `carrel take … --shared postgresql://…:8000` reaches the lab's store, not port 8000.
    @Test func theServicesStoreWinsOverTheOneASessionNames() throws {
        let lab = try AssessmentdLab()
        let store = try Listener(), named = try Listener()
        try lab.start(["--store", "127.0.0.1:\(store.port)"])
        #expect(lab.logText.contains("the lab's store: 127.0.0.1:\(store.port)"))
        let carrel = try lab.client()
        let (reply, _) = Self.ask(carrel, AssessmentdLab.begin(session: "s-pinned", port: named.port))
        let steps = try #require(Self.began(reply), "\(String(describing: reply)) \(lab.logText)")
        #expect(steps.first { $0.kind == .network }?.detail.contains("127.0.0.1:\(store.port)") == true, "\(steps)")
        #expect(lab.reach(store.port, as: lab.students[0]) == .reached)
        #expect(lab.reach(named.port, as: lab.students[0]) == .refused, "the port the session named is not the lab's store")
        #expect(Self.ask(carrel, AssessmentdLab.line(.end)).0 != nil)
        #expect(lab.reach(named.port, as: lab.students[0]) == .reached, "back after the end")
    }
}

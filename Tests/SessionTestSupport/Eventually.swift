#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Waiting, in a synchronous test, for something another process does.
public enum Eventually {
    /// Polls `condition` every 50 ms for up to `seconds`; its last answer.
    public static func poll(_ seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            usleep(50_000)
        }
        return condition()
    }
}

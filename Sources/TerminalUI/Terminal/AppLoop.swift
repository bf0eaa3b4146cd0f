/// One screen of Carrel run by the app loop: `take` and `resume` (TakeApp), the workshop demo
/// (DemoApp) and the proctor's console (ConsoleApp). Each says what it shows and how it
/// reacts; the loop owns the terminal, the input and the order of things.
public protocol LoopedScreen: AnyObject {
    /// Paints a frame when something on screen changed (the terminal skips an unchanged one).
    func draw(on terminal: any Terminal)
    /// How long the next read may wait when nothing arrives.
    var readWait: Double { get }
    /// True while the line being typed is a secret, never judged as a paste.
    var readsSecret: Bool { get }
    /// Reacts to what the terminal sent (keys, a paste, focus, a resize, the terminal gone) and
    /// to the store's news (`.store`).
    func handle(_ input: TerminalInput, on terminal: any Terminal)
    /// Time moves on: the session's pump (signals, tracers, the clock), after the input of
    /// this turn.
    func step(on terminal: any Terminal)
    /// True once the loop should end.
    var finished: Bool { get }
    /// Rung from another thread when the screen's store feed has news.
    var bell: LoopBell { get }
}

/// The one app loop: draw, read (at most `readWait`), react, step, until the screen is done.
/// It runs on any `Terminal`, so every screen is driven in memory by tests exactly as on a
/// real terminal.
public final class AppLoop {
    public let terminal: any Terminal
    public let input: InputReader

    public init(terminal: any Terminal, monotonic: @escaping @Sendable () -> Double) {
        self.terminal = terminal
        self.input = InputReader(canvas: terminal, monotonic: monotonic)
    }

    /// Runs `screen` until it is finished. The terminal must already be started; the caller
    /// stops it (a screen may leave the loop with the terminal in use, e.g. for a receipt).
    public func run(_ screen: any LoopedScreen) {
        input.bell = screen.bell
        while !screen.finished {
            screen.draw(on: terminal)
            // Drawing may end the screen (the slow checks after the first frame refused).
            if screen.finished { return }
            input.secretLine = screen.readsSecret
            for event in input.next(waitingAtMost: screen.readWait) { screen.handle(event, on: terminal) }
            screen.step(on: terminal)
        }
    }
}

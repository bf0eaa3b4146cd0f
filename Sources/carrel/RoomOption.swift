import ArgumentParser

/// `--room NAME` of the proctor's commands (or CARREL_ROOM), read and checked in one place.
struct RoomOption: ParsableArguments {
    @Option(help: ArgumentHelp("The room (also CARREL_ROOM).", valueName: "name")) var room: String?

    /// The room given, or CARREL_ROOM's.
    var name: String? {
        if let room { return room }
        if let env = ProcessEnvironment.current["CARREL_ROOM"], !env.isEmpty { return env }
        return nil
    }

    func validate() throws {
        guard let name else { throw ValidationError("give the room with --room NAME (or set CARREL_ROOM)") }
        if let problem = SharedOptions.labelProblem(name) { throw ValidationError("--room: \(problem)") }
    }
}

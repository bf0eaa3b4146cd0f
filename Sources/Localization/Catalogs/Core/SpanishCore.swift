extension Spanish {
    static let core: [String: String] = [:]
}

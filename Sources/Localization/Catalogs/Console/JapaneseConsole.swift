extension Japanese {
    static let console: [String: String] = [:]
}

extension German {
    static let core: [String: String] = [:]
}

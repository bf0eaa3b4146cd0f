extension Japanese {
    static let core: [String: String] = [:]
}

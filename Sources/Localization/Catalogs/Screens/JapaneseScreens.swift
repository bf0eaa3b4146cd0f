extension Japanese {
    static let screens: [String: String] = [:]
}

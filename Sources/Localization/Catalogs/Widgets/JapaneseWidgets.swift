extension Japanese {
    static let widgets: [String: String] = [:]
}

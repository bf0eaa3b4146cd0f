extension German {
    static let widgets: [String: String] = [:]
}

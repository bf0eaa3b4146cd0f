extension SharedSchema {
    /// Version 3, no notice per record: PostgreSQL signals every listening backend of the database for
    /// each notice, whatever channel it listens on, so with a thousand seats listening for the
    /// proctor's commands a notice per record kept every one of them busy (and the console
    /// re-reading the room without pause). The console reads once a second instead.
    static let version3QuietRecords = """
        DROP TRIGGER IF EXISTS carrel_records_notify ON carrel_records;
        DROP FUNCTION IF EXISTS carrel_records_notify();
        """
}

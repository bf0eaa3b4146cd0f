/// A key press or terminal report, decoded from ncurses input.
public enum Key: Sendable, Equatable {
    case character(Character)
    case up, down, left, right, home, end, pageUp, pageDown
    case shiftUp, shiftDown
    case enter, tab, backTab, backspace, delete, escape
    case function(Int)
    /// Ctrl plus a letter, lower case (`ctrl("c")`).
    case control(Character)
    case pasteStart, pasteEnd
    case focusIn, focusOut
    case resize
}

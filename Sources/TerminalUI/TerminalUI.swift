// TerminalUI: filled by the session-controller and terminal-UI work (see docs/architecture.md).

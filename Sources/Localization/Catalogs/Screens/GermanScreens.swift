extension German {
    static let screens: [String: String] = [
        "Candidate: {0}":
            "Prüfling: {0}",
        "(not given)":
            "(nicht angegeben)",
        "{0, plural, one {# question} other {# questions}}":
            "{0, plural, one {# Frage} other {# Fragen}}",
        "time allowed {0}":
            "Bearbeitungszeit {0}",
        "no time limit":
            "ohne Zeitbegrenzung",
        "no going back":
            "kein Zurückgehen möglich",
        "move freely between questions":
            "freier Wechsel zwischen den Fragen",
        "During this assessment":
            "Während dieser Prüfung",
        "Pasting: blocked and logged":
            "Einfügen: gesperrt und protokolliert",
        "Pasting: allowed":
            "Einfügen: erlaubt",
        "Clipboards: cleared at start and end":
            "Zwischenablagen: zu Beginn und am Ende geleert",
        "Clipboards: left alone":
            "Zwischenablagen: unverändert",
        "Ctrl-C: end this practice test (asks first; your answers are kept)":
            "Ctrl-C: diese Übungsprüfung beenden (mit Rückfrage; Ihre Antworten bleiben erhalten)",
        "Ctrl-C / Ctrl-Z: ask your proctor":
            "Ctrl-C / Ctrl-Z: wenden Sie sich an die Aufsicht",
        "Ctrl-C / Ctrl-Z: leave (saved, resumable)":
            "Ctrl-C / Ctrl-Z: verlassen (gespeichert, später fortsetzbar)",
        "Leaving this window: logged":
            "Verlassen dieses Fensters: wird protokolliert",
        "Leaving this window: not logged":
            "Verlassen dieses Fensters: wird nicht protokolliert",
        "tmux/screen: refused":
            "tmux/screen: abgelehnt",
        "tmux/screen: allowed":
            "tmux/screen: erlaubt",
        "Injected code, debuggers: refused":
            "Eingeschleuster Code, Debugger: abgelehnt",
        "Injected code: allowed":
            "Eingeschleuster Code: erlaubt",
        "SSH: refused (local console only)":
            "SSH: abgelehnt (nur lokale Konsole)",
        "SSH: allowed":
            "SSH: erlaubt",
        "Ends itself after {0} at most":
            "Endet spätestens nach {0} von selbst",
        "Never offered: autocorrect, spell check, predictive text, lookup, clipboard, extensions.":
            "Nicht verfügbar: Autokorrektur, Rechtschreibprüfung, Wortvorschläge, Nachschlagen, Zwischenablage, Erweiterungen.",
        "Waiting for the proctor to start. Nothing is locked and no time runs yet.":
            "Warten auf den Start durch die Aufsicht. Noch ist nichts gesperrt, und die Zeit läuft noch nicht.",
        "Seat key: {0} (the proctor checks it before starting)":
            "Platzschlüssel: {0} (die Aufsicht prüft ihn vor dem Start)",
        "The proctor enters the passphrase to start.":
            "Die Aufsicht gibt zum Starten die Passphrase ein.",
        "Proctor passphrase:":
            "Passphrase der Aufsicht:",
        "This terminal will be locked to this test until you submit, for at most {0}.":
            "Dieses Terminal wird bis zu Ihrer Abgabe, höchstens {0} lang, gesperrt und ist nur für diese Prüfung nutzbar.",
        "Pasting, other programs and leaving with Ctrl-C or Ctrl-Z will not be possible until then.":
            "Einfügen, andere Programme und Verlassen mit Ctrl-C oder Ctrl-Z sind bis dahin nicht möglich.",
        "Pasting and other programs will not be possible until then; Ctrl-C asks whether to end this practice test.":
            "Bis dahin sind Einfügen und andere Programme nicht möglich; Ctrl-C fragt, ob Sie diese Übungsprüfung beenden möchten.",
        "Begin? {0}/N":
            "Beginnen? {0}/N",
        "This terminal is now locked to Carrel":
            "Dieses Terminal ist jetzt gesperrt und nur für Carrel nutzbar",
        "Press any key for the first question.":
            "Drücken Sie eine beliebige Taste für die erste Frage.",
        "Please enlarge the terminal to at least {0}×{1} (now {2}×{3}).":
            "Bitte vergrößern Sie das Terminal auf mindestens {0}×{1} (jetzt {2}×{3}).",
        "Please enlarge the terminal to at least {0}×{1} (now {2}×{3}). Your time keeps counting; keys do nothing until the test fits.":
            "Bitte vergrößern Sie das Terminal auf mindestens {0}×{1} (jetzt {2}×{3}). Ihre Zeit läuft weiter; Tasten bewirken nichts, bis die Prüfung auf den Bildschirm passt.",
        "End this practice test now?":
            "Diese Übungsprüfung jetzt beenden?",
        "Submit? Enlarge the terminal to see what is unanswered":
            "Abgeben? Vergrößern Sie das Terminal, um die unbeantworteten Fragen zu sehen",
        "Question {0} of {1}":
            "Frage {0} von {1}",
        "⟨save⟩saved":
            "gespeichert",
        "⟨save⟩saving":
            "wird gespeichert",
        "not saved ({0}), retrying":
            "nicht gespeichert ({0}), neuer Versuch läuft",
        "section {0}":
            "Abschnitt {0}",
        "⟨question state⟩flagged":
            "markiert",
        "part answered: {0}":
            "teilweise beantwortet: {0}",
        "⟨question state⟩part answered":
            "teilweise beantwortet",
        "paused by the proctor":
            "von der Aufsicht angehalten",
        "⟨header⟩paused":
            "angehalten",
        "⟨between parts of a line⟩, ":
            ", ",
        "Ctrl-T: time left":
            "Ctrl-T: Restzeit",
        "clock hidden (Ctrl-K)":
            "Uhr ausgeblendet (Ctrl-K)",
        "proctor called":
            "Aufsicht gerufen",
        "the proctor is coming":
            "die Aufsicht kommt",
        "{0, plural, one {# line above} other {# lines above}}: PgUp":
            "{0, plural, one {# Zeile darüber} other {# Zeilen darüber}}: PgUp",
        "{0, plural, one {# more line below} other {# more lines below}}: PgDn":
            "{0, plural, one {# weitere Zeile darunter} other {# weitere Zeilen darunter}}: PgDn",
        "Question {0} is not answered.":
            "Frage {0} ist nicht beantwortet.",
        "In this test you cannot come back to it. Leave it unanswered?":
            "In dieser Prüfung können Sie nicht zu dieser Frage zurückkehren. Unbeantwortet lassen?",
        "Review: {0} of {1} answered, {2} flagged":
            "Übersicht: {0} von {1} beantwortet, {2} markiert",
        "⟨question state⟩answered":
            "beantwortet",
        "⟨question state⟩not answered":
            "nicht beantwortet",
        "⟨review row⟩{0}: {1}":
            "{0}: {1}",
        "{0} more above":
            "{0} weitere oben",
        "{0} more below":
            "{0} weitere unten",
        "Submit your answers now?":
            "Antworten jetzt abgeben?",
        "Every question is answered.":
            "Alle Fragen sind beantwortet.",
        "Every question has an answer.":
            "Jede Frage hat eine Antwort.",
        "⟨question and how much of it is answered⟩{0} ({1})":
            "{0} ({1})",
        "⟨between question numbers⟩, ":
            ", ",
        "Not answered: {0, plural, one {question {1}} other {questions {1}}}":
            "Nicht beantwortet: {0, plural, one {Frage {1}} other {Fragen {1}}}",
        "{0, plural, one {# question not answered} other {# questions not answered}}; first: {1} …":
            "{0, plural, one {# Frage nicht beantwortet} other {# Fragen nicht beantwortet}}; die ersten: {1} …",
        "{0, plural, one {# question not answered} other {# questions not answered}}":
            "{0, plural, one {# Frage nicht beantwortet} other {# Fragen nicht beantwortet}}",
        "Flagged: {0, plural, one {question {1}} other {questions {1}}}":
            "Markiert: {0, plural, one {Frage {1}} other {Fragen {1}}}",
        "{0, plural, one {# question flagged} other {# questions flagged}}; first: {1} …":
            "{0, plural, one {# Frage markiert} other {# Fragen markiert}}; die ersten: {1} …",
        "{0, plural, one {# question flagged} other {# questions flagged}}":
            "{0, plural, one {# Frage markiert} other {# Fragen markiert}}",
        "Part answered: {0, plural, one {question {1}} other {questions {1}}}":
            "Teilweise beantwortet: {0, plural, one {Frage {1}} other {Fragen {1}}}",
        "{0, plural, one {# question part answered} other {# questions part answered}}; first: {1} …":
            "{0, plural, one {# Frage teilweise beantwortet} other {# Fragen teilweise beantwortet}}; die ersten: {1} …",
        "{0, plural, one {# question part answered} other {# questions part answered}}":
            "{0, plural, one {# Frage teilweise beantwortet} other {# Fragen teilweise beantwortet}}",
        "{2}: {0, plural, one {question {1}} other {questions {1}}}":
            "{2}: {0, plural, one {Frage {1}} other {Fragen {1}}}",
        "{2}: {0, plural, one {# question} other {# questions}}; first: {1} …":
            "{2}: {0, plural, one {# Frage} other {# Fragen}}; die ersten: {1} …",
        "{2}: {0, plural, one {# question} other {# questions}}":
            "{2}: {0, plural, one {# Frage} other {# Fragen}}",
        "Ask your proctor to end this session.":
            "Bitten Sie die Aufsicht, diese Sitzung zu beenden.",
        "Your answers are saved. Esc returns to the test.":
            "Ihre Antworten sind gespeichert. Mit Esc kehren Sie zur Prüfung zurück.",
        "Your answers are kept and submitted as they are.":
            "Ihre Antworten bleiben erhalten und werden so abgegeben, wie sie sind.",
        "Message from the proctor":
            "Nachricht der Aufsicht",
        "Press any key to close this message.":
            "Drücken Sie eine beliebige Taste, um diese Nachricht zu schließen.",
        "Your answers are saved. Ctrl-T says the time left; F12 calls the proctor.":
            "Ihre Antworten sind gespeichert. Ctrl-T nennt die Restzeit; F12 ruft die Aufsicht.",
        "Your answers were submitted.":
            "Ihre Antworten wurden abgegeben.",
        "Time is up: your answers were saved and submitted.":
            "Die Zeit ist abgelaufen: Ihre Antworten wurden gespeichert und abgegeben.",
        "The proctor ended this session. Your answers were saved.":
            "Die Aufsicht hat diese Sitzung beendet. Ihre Antworten wurden gespeichert.",
        "You ended this practice session. Your answers were saved.":
            "Sie haben diese Übungssitzung beendet. Ihre Antworten wurden gespeichert.",
        "⟨receipt⟩Candidate":
            "Prüfling",
        "⟨receipt⟩Session":
            "Sitzung",
        "⟨receipt⟩Time used":
            "Benötigte Zeit",
        "⟨receipt⟩Answered":
            "Beantwortet",
        "⟨receipt⟩{0} of {1}":
            "{0} von {1}",
        "⟨receipt⟩Score":
            "Punktzahl",
        "{0} of {1} points":
            "{0} von {1} Punkten",
        "{0} of {1} points ({2} still to be marked by a person)":
            "{0} von {1} Punkten ({2} noch von einer Person zu bewerten)",
        "given by your proctor, who holds the answer key":
            "vergibt die Aufsicht, die den Lösungsschlüssel hat",
        "shown once this seat's answers reach the store":
            "wird angezeigt, sobald die Antworten dieses Platzes den Speicher erreicht haben",
        "Tell your proctor: {0}":
            "Teilen Sie der Aufsicht mit: {0}",
        "This terminal is no longer locked.":
            "Dieses Terminal ist nicht mehr gesperrt.",
        "Keys":
            "Tasten",
        "lines {0}–{1} of {2}":
            "Zeilen {0}–{1} von {2}",
        "Candidate number: ":
            "Kandidatennummer: ",
        "Candidate code (not shown): ":
            "Kandidatencode (wird nicht angezeigt): ",
        "Type the number on your candidate card.":
            "Geben Sie die Nummer auf Ihrer Kandidatenkarte ein.",
        "Candidate {0} is not on the roster of this room. Check the number, or ask the proctor.":
            "Kandidat {0} steht nicht auf der Liste dieses Raums. Prüfen Sie die Nummer oder fragen Sie die Aufsicht.",
        "That candidate number and code do not match the roster. Check your card, or ask the proctor.":
            "Diese Kandidatennummer und dieser Code passen nicht zur Liste. Prüfen Sie Ihre Karte oder fragen Sie die Aufsicht.",
        "Candidate {0} is held after too many wrong codes. Ask the proctor.":
            "Kandidat {0} ist nach zu vielen falschen Codes gesperrt. Fragen Sie die Aufsicht.",
        "Candidate {0} is already seated at {1}; the proctor has been shown both seats. Ask the proctor.":
            "Kandidat {0} sitzt bereits an Platz {1}; die Aufsicht sieht beide Plätze. Fragen Sie die Aufsicht.",
        "{0} — is this you? {1}/N":
            "{0} — sind Sie das? {1}/N",
        "{0} ({1}) has a session at seat {2}. Ask the proctor to move it to this seat? {3}/N":
            "{0} ({1}) hat eine Sitzung an Platz {2}. Die Aufsicht bitten, sie an diesen Platz zu verlegen? {3}/N",
        "Waiting for the proctor to move your session here from seat {0}.":
            "Warten auf die Aufsicht, die Ihre Sitzung von Platz {0} hierher verlegt.",
        "⟨answer⟩yes":
            "ja",
        "⟨identification⟩no candidate number was given; nothing was started":
            "es wurde keine Kandidatennummer eingegeben; nichts wurde gestartet",
        "⟨identification⟩no candidate code was given; nothing was started":
            "es wurde kein Kandidatencode eingegeben; nichts wurde gestartet",
        "⟨identification⟩the candidate was not identified; nothing was started — ask the proctor":
            "der Kandidat wurde nicht identifiziert; nichts wurde gestartet — fragen Sie die Aufsicht",
    ]
}

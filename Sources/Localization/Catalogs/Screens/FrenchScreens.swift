extension French {
    static let screens: [String: String] = [
        "Candidate: {0}":
            "Candidat\u{00A0}: {0}",
        "(not given)":
            "(non indiqué)",
        "{0, plural, one {# question} other {# questions}}":
            "{0, plural, one {# question} many {# questions} other {# questions}}",
        "time allowed {0}":
            "temps imparti\u{00A0}: {0}",
        "no time limit":
            "sans limite de temps",
        "no going back":
            "sans retour en arrière",
        "move freely between questions":
            "navigation libre entre les questions",
        "During this assessment":
            "Pendant cette épreuve",
        "Pasting: blocked and logged":
            "Coller\u{00A0}: bloqué et consigné",
        "Pasting: allowed":
            "Coller\u{00A0}: autorisé",
        "Clipboards: cleared at start and end":
            "Presse-papiers\u{00A0}: vidés au début et à la fin",
        "Clipboards: left alone":
            "Presse-papiers\u{00A0}: laissés tels quels",
        "Ctrl-C: end this practice test (asks first; your answers are kept)":
            "Ctrl-C\u{00A0}: terminer cet entraînement (avec confirmation\u{00A0}; vos réponses sont conservées)",
        "Ctrl-C / Ctrl-Z: ask your proctor":
            "Ctrl-C / Ctrl-Z\u{00A0}: adressez-vous au surveillant",
        "Ctrl-C / Ctrl-Z: leave (saved, resumable)":
            "Ctrl-C / Ctrl-Z\u{00A0}: quitter (enregistré, reprise possible)",
        "Leaving this window: logged":
            "Sortie de cette fenêtre\u{00A0}: consignée",
        "Leaving this window: not logged":
            "Sortie de cette fenêtre\u{00A0}: non consignée",
        "tmux/screen: refused":
            "tmux/screen\u{00A0}: refusés",
        "tmux/screen: allowed":
            "tmux/screen\u{00A0}: autorisés",
        "Injected code, debuggers: refused":
            "Code injecté, débogueurs\u{00A0}: refusés",
        "Injected code: allowed":
            "Code injecté\u{00A0}: autorisé",
        "SSH: refused (local console only)":
            "SSH\u{00A0}: refusé (console locale uniquement)",
        "SSH: allowed":
            "SSH\u{00A0}: autorisé",
        "Ends itself after {0} at most":
            "Se termine automatiquement après {0} au maximum",
        "Never offered: autocorrect, spell check, predictive text, lookup, clipboard, extensions.":
            "Jamais proposés\u{00A0}: correction automatique, vérification orthographique, saisie prédictive, recherche, presse-papiers, extensions.",
        "Waiting for the proctor to start. Nothing is locked and no time runs yet.":
            "En attente du démarrage par le surveillant. Rien n’est verrouillé et le temps ne court pas encore.",
        "Seat key: {0} (the proctor checks it before starting)":
            "Clé du poste\u{00A0}: {0} (le surveillant la vérifie avant de démarrer l’épreuve)",
        "The proctor enters the passphrase to start.":
            "Le surveillant saisit la phrase secrète pour commencer.",
        "Proctor passphrase:":
            "Phrase secrète du surveillant\u{00A0}:",
        "This terminal will be locked to this test until you submit, for at most {0}.":
            "Ce terminal sera verrouillé sur cette épreuve jusqu’à ce que vous rendiez votre copie, pendant {0} au maximum.",
        "Pasting, other programs and leaving with Ctrl-C or Ctrl-Z will not be possible until then.":
            "D’ici là, vous ne pourrez ni coller, ni utiliser d’autres programmes, ni quitter avec Ctrl-C ou Ctrl-Z.",
        "Pasting and other programs will not be possible until then; Ctrl-C asks whether to end this practice test.":
            "D’ici là, vous ne pourrez ni coller ni utiliser d’autres programmes\u{00A0}; Ctrl-C propose de terminer cet entraînement.",
        "Begin? {0}/N":
            "Commencer\u{00A0}? {0}/N",
        "This terminal is now locked to Carrel":
            "Ce terminal est maintenant verrouillé sur Carrel",
        "Press any key for the first question.":
            "Appuyez sur une touche pour afficher la première question.",
        "Please enlarge the terminal to at least {0}×{1} (now {2}×{3}).":
            "Veuillez agrandir le terminal à {0}×{1} au moins (actuellement {2}×{3}).",
        "Please enlarge the terminal to at least {0}×{1} (now {2}×{3}). Your time keeps counting; keys do nothing until the test fits.":
            "Veuillez agrandir le terminal à {0}×{1} au moins (actuellement {2}×{3}). Le temps continue de s’écouler\u{00A0}; les touches restent sans effet tant que l’épreuve ne tient pas à l’écran.",
        "End this practice test now?":
            "Terminer cet entraînement maintenant\u{00A0}?",
        "Submit? Enlarge the terminal to see what is unanswered":
            "Rendre la copie\u{00A0}? Agrandissez le terminal pour voir les questions sans réponse",
        "Question {0} of {1}":
            "Question {0} sur {1}",
        "⟨save⟩saved":
            "enregistré",
        "⟨save⟩saving":
            "enregistrement…",
        "not saved ({0}), retrying":
            "non enregistré ({0}), nouvel essai en cours",
        "section {0}":
            "partie {0}",
        "⟨question state⟩flagged":
            "marquée",
        "part answered: {0}":
            "réponse partielle ({0})",
        "⟨question state⟩part answered":
            "réponse partielle",
        "paused by the proctor":
            "mise en pause par le surveillant",
        "⟨header⟩paused":
            "en pause",
        "⟨between parts of a line⟩, ":
            ", ",
        "Ctrl-T: time left":
            "Ctrl-T\u{00A0}: temps restant",
        "clock hidden (Ctrl-K)":
            "horloge masquée (Ctrl-K)",
        "proctor called":
            "surveillant appelé",
        "the proctor is coming":
            "le surveillant arrive",
        "{0, plural, one {# line above} other {# lines above}}: PgUp":
            "{0, plural, one {# ligne au-dessus} many {# lignes au-dessus} other {# lignes au-dessus}}\u{00A0}: PgUp",
        "{0, plural, one {# more line below} other {# more lines below}}: PgDn":
            "{0, plural, one {encore # ligne en dessous} many {encore # lignes en dessous} other {encore # lignes en dessous}}\u{00A0}: PgDn",
        "Question {0} is not answered.":
            "La question {0} n’a pas de réponse.",
        "In this test you cannot come back to it. Leave it unanswered?":
            "Dans cette épreuve, vous ne pourrez pas y revenir. La laisser sans réponse\u{00A0}?",
        "Review: {0} of {1} answered, {2} flagged":
            "Récapitulatif\u{00A0}: {0} sur {1} avec réponse, {2, plural, one {# marquée} many {# marquées} other {# marquées}}",
        "⟨question state⟩answered":
            "avec réponse",
        "⟨question state⟩not answered":
            "sans réponse",
        "⟨review row⟩{0}: {1}":
            "{0}\u{00A0}: {1}",
        "{0} more above":
            "encore {0} au-dessus",
        "{0} more below":
            "encore {0} en dessous",
        "Submit your answers now?":
            "Rendre votre copie maintenant\u{00A0}?",
        "Every question is answered.":
            "Toutes les questions ont une réponse.",
        "Every question has an answer.":
            "Chaque question a une réponse.",
        "⟨question and how much of it is answered⟩{0} ({1})":
            "{0} ({1})",
        "⟨between question numbers⟩, ":
            ", ",
        "Not answered: {0, plural, one {question {1}} other {questions {1}}}":
            "Sans réponse\u{00A0}: {0, plural, one {question {1}} many {questions {1}} other {questions {1}}}",
        "{0, plural, one {# question not answered} other {# questions not answered}}; first: {1} …":
            "{0, plural, one {# question sans réponse} many {# questions sans réponse} other {# questions sans réponse}}\u{00A0}; premières\u{00A0}: {1} …",
        "{0, plural, one {# question not answered} other {# questions not answered}}":
            "{0, plural, one {# question sans réponse} many {# questions sans réponse} other {# questions sans réponse}}",
        "Flagged: {0, plural, one {question {1}} other {questions {1}}}":
            "{0, plural, one {Marquée\u{00A0}: question {1}} many {Marquées\u{00A0}: questions {1}} other {Marquées\u{00A0}: questions {1}}}",
        "{0, plural, one {# question flagged} other {# questions flagged}}; first: {1} …":
            "{0, plural, one {# question marquée} many {# questions marquées} other {# questions marquées}}\u{00A0}; premières\u{00A0}: {1} …",
        "{0, plural, one {# question flagged} other {# questions flagged}}":
            "{0, plural, one {# question marquée} many {# questions marquées} other {# questions marquées}}",
        "Part answered: {0, plural, one {question {1}} other {questions {1}}}":
            "{0, plural, one {Réponse partielle\u{00A0}: question {1}} many {Réponses partielles\u{00A0}: questions {1}} other {Réponses partielles\u{00A0}: questions {1}}}",
        "{0, plural, one {# question part answered} other {# questions part answered}}; first: {1} …":
            "{0, plural, one {# question à réponse partielle} many {# questions à réponse partielle} other {# questions à réponse partielle}}\u{00A0}; premières\u{00A0}: {1} …",
        "{0, plural, one {# question part answered} other {# questions part answered}}":
            "{0, plural, one {# question à réponse partielle} many {# questions à réponse partielle} other {# questions à réponse partielle}}",
        "{2}: {0, plural, one {question {1}} other {questions {1}}}":
            "{2}\u{00A0}: {0, plural, one {question {1}} many {questions {1}} other {questions {1}}}",
        "{2}: {0, plural, one {# question} other {# questions}}; first: {1} …":
            "{2}\u{00A0}: {0, plural, one {# question} many {# questions} other {# questions}}\u{00A0}; premières\u{00A0}: {1} …",
        "{2}: {0, plural, one {# question} other {# questions}}":
            "{2}\u{00A0}: {0, plural, one {# question} many {# questions} other {# questions}}",
        "Ask your proctor to end this session.":
            "Demandez au surveillant de mettre fin à cette session.",
        "Your answers are saved. Esc returns to the test.":
            "Vos réponses sont enregistrées. Esc ramène à l’épreuve.",
        "Your answers are kept and submitted as they are.":
            "Vos réponses sont conservées et rendues telles quelles.",
        "Message from the proctor":
            "Message du surveillant",
        "Press any key to close this message.":
            "Appuyez sur une touche pour fermer ce message.",
        "Your answers are saved. Ctrl-T says the time left; F12 calls the proctor.":
            "Vos réponses sont enregistrées. Ctrl-T indique le temps restant\u{00A0}; F12 appelle le surveillant.",
        "Your answers were submitted.":
            "Votre copie a été rendue.",
        "Time is up: your answers were saved and submitted.":
            "Le temps est écoulé\u{00A0}: vos réponses ont été enregistrées et rendues.",
        "The proctor ended this session. Your answers were saved.":
            "Le surveillant a mis fin à cette session. Vos réponses ont été enregistrées.",
        "You ended this practice session. Your answers were saved.":
            "Vous avez terminé cet entraînement. Vos réponses ont été enregistrées.",
        "⟨receipt⟩Candidate":
            "Candidat",
        "⟨receipt⟩Session":
            "Session",
        "⟨receipt⟩Time used":
            "Temps utilisé",
        "⟨receipt⟩Answered":
            "Réponses",
        "⟨receipt⟩{0} of {1}":
            "{0} sur {1}",
        "⟨receipt⟩Score":
            "Note",
        "{0} of {1} points":
            "{0} sur {1} points",
        "{0} of {1} points ({2} still to be marked by a person)":
            "{0} sur {1} points ({2} encore à corriger par un correcteur)",
        "given by your proctor, who holds the answer key":
            "attribuée par le surveillant, qui détient le corrigé",
        "shown once this seat's answers reach the store":
            "affiché dès que les réponses de ce poste ont atteint le serveur",
        "Tell your proctor: {0}":
            "Prévenez le surveillant\u{00A0}: {0}",
        "This terminal is no longer locked.":
            "Ce terminal n’est plus verrouillé.",
        "Keys":
            "Touches",
        "lines {0}–{1} of {2}":
            "lignes {0} à {1} sur {2}",
        "Candidate number: ":
            "Numéro de candidat : ",
        "Candidate code (not shown): ":
            "Code de candidat (masqué) : ",
        "Type the number on your candidate card.":
            "Tapez le numéro inscrit sur votre carte de candidat.",
        "Candidate {0} is not on the roster of this room. Check the number, or ask the proctor.":
            "Le candidat {0} n'est pas sur la liste de cette salle. Vérifiez le numéro ou appelez le surveillant.",
        "That candidate number and code do not match the roster. Check your card, or ask the proctor.":
            "Ce numéro et ce code de candidat ne correspondent pas à la liste. Vérifiez votre carte ou appelez le surveillant.",
        "Candidate {0} is held after too many wrong codes. Ask the proctor.":
            "Le candidat {0} est bloqué après trop de codes erronés. Appelez le surveillant.",
        "Candidate {0} is already seated at {1}; the proctor has been shown both seats. Ask the proctor.":
            "Le candidat {0} est déjà installé au poste {1} ; le surveillant voit les deux postes. Appelez le surveillant.",
        "{0} — is this you? {1}/N":
            "{0} — est-ce bien vous ? {1}/N",
        "{0} ({1}) has a session at seat {2}. Ask the proctor to move it to this seat? {3}/N":
            "{0} ({1}) a une session au poste {2}. Demander au surveillant de la déplacer vers ce poste ? {3}/N",
        "Waiting for the proctor to move your session here from seat {0}.":
            "En attente du surveillant, qui va déplacer votre session ici depuis le poste {0}.",
        "⟨answer⟩yes":
            "oui",
        "⟨identification⟩no candidate number was given; nothing was started":
            "aucun numéro de candidat n'a été donné ; rien n'a été commencé",
        "⟨identification⟩no candidate code was given; nothing was started":
            "aucun code de candidat n'a été donné ; rien n'a été commencé",
        "⟨identification⟩the candidate was not identified; nothing was started — ask the proctor":
            "le candidat n'a pas été identifié ; rien n'a été commencé — appelez le surveillant",
    ]
}

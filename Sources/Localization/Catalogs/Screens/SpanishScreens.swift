extension Spanish {
    static let screens: [String: String] = [
        "Candidate: {0}":
            "Participante: {0}",
        "(not given)":
            "(no indicado)",
        "{0, plural, one {# question} other {# questions}}":
            "{0, plural, one {# pregunta} many {# preguntas} other {# preguntas}}",
        "time allowed {0}":
            "tiempo disponible: {0}",
        "no time limit":
            "sin límite de tiempo",
        "no going back":
            "sin poder volver atrás",
        "move freely between questions":
            "navegación libre entre preguntas",
        "During this assessment":
            "Durante esta prueba",
        "Pasting: blocked and logged":
            "Pegar: bloqueado y registrado",
        "Pasting: allowed":
            "Pegar: permitido",
        "Clipboards: cleared at start and end":
            "Portapapeles: se vacían al inicio y al final",
        "Clipboards: left alone":
            "Portapapeles: no se modifican",
        "Ctrl-C: end this practice test (asks first; your answers are kept)":
            "Ctrl-C: terminar esta prueba de práctica (pide confirmación; sus respuestas se conservan)",
        "Ctrl-C / Ctrl-Z: ask your proctor":
            "Ctrl-C / Ctrl-Z: consulte a su supervisor",
        "Ctrl-C / Ctrl-Z: leave (saved, resumable)":
            "Ctrl-C / Ctrl-Z: salir (se guarda y se puede reanudar)",
        "Leaving this window: logged":
            "Salir de esta ventana: se registra",
        "Leaving this window: not logged":
            "Salir de esta ventana: no se registra",
        "tmux/screen: refused":
            "tmux/screen: rechazados",
        "tmux/screen: allowed":
            "tmux/screen: permitidos",
        "Injected code, debuggers: refused":
            "Código inyectado, depuradores: rechazados",
        "Injected code: allowed":
            "Código inyectado: permitido",
        "SSH: refused (local console only)":
            "SSH: rechazado (solo consola local)",
        "SSH: allowed":
            "SSH: permitido",
        "Ends itself after {0} at most":
            "Termina por sí sola tras {0} como máximo",
        "Never offered: autocorrect, spell check, predictive text, lookup, clipboard, extensions.":
            "Nunca disponibles: autocorrección, corrector ortográfico, texto predictivo, búsqueda, portapapeles, extensiones.",
        "Waiting for the proctor to start. Nothing is locked and no time runs yet.":
            "Esperando a que el supervisor inicie la prueba. Nada está bloqueado y el tiempo aún no corre.",
        "Seat key: {0} (the proctor checks it before starting)":
            "Clave del puesto: {0} (el supervisor la comprueba antes de empezar)",
        "The proctor enters the passphrase to start.":
            "El supervisor introduce la frase de contraseña para empezar.",
        "Proctor passphrase:":
            "Frase de contraseña del supervisor:",
        "This terminal will be locked to this test until you submit, for at most {0}.":
            "Este terminal quedará bloqueado en esta prueba hasta que la entregue, durante {0} como máximo.",
        "Pasting, other programs and leaving with Ctrl-C or Ctrl-Z will not be possible until then.":
            "Hasta entonces no podrá pegar, usar otros programas ni salir con Ctrl-C o Ctrl-Z.",
        "Pasting and other programs will not be possible until then; Ctrl-C asks whether to end this practice test.":
            "Hasta entonces no podrá pegar ni usar otros programas; Ctrl-C pregunta si desea terminar esta prueba de práctica.",
        "Begin? {0}/N":
            "¿Empezar? {0}/N",
        "This terminal is now locked to Carrel":
            "Este terminal queda bloqueado en Carrel",
        "Press any key for the first question.":
            "Pulse cualquier tecla para ver la primera pregunta.",
        "Please enlarge the terminal to at least {0}×{1} (now {2}×{3}).":
            "Amplíe el terminal al menos a {0}×{1} (ahora mide {2}×{3}).",
        "Please enlarge the terminal to at least {0}×{1} (now {2}×{3}). Your time keeps counting; keys do nothing until the test fits.":
            "Amplíe el terminal al menos a {0}×{1} (ahora mide {2}×{3}). Su tiempo sigue corriendo; las teclas no hacen nada hasta que la prueba quepa.",
        "End this practice test now?":
            "¿Terminar ahora esta prueba de práctica?",
        "Submit? Enlarge the terminal to see what is unanswered":
            "¿Entregar? Amplíe el terminal para ver qué queda sin responder",
        "Question {0} of {1}":
            "Pregunta {0} de {1}",
        "⟨save⟩saved":
            "guardado",
        "⟨save⟩saving":
            "guardando",
        "not saved ({0}), retrying":
            "no guardado ({0}), reintentando",
        "section {0}":
            "sección {0}",
        "⟨question state⟩flagged":
            "marcada",
        "part answered: {0}":
            "respuesta parcial ({0})",
        "⟨question state⟩part answered":
            "respuesta parcial",
        "paused by the proctor":
            "pausada por el supervisor",
        "⟨header⟩paused":
            "en pausa",
        "⟨between parts of a line⟩, ":
            ", ",
        "Ctrl-T: time left":
            "Ctrl-T: tiempo restante",
        "clock hidden (Ctrl-K)":
            "reloj oculto (Ctrl-K)",
        "proctor called":
            "supervisor avisado",
        "the proctor is coming":
            "el supervisor está en camino",
        "{0, plural, one {# line above} other {# lines above}}: PgUp":
            "{0, plural, one {# línea arriba} many {# líneas arriba} other {# líneas arriba}}: PgUp",
        "{0, plural, one {# more line below} other {# more lines below}}: PgDn":
            "{0, plural, one {# línea más abajo} many {# líneas más abajo} other {# líneas más abajo}}: PgDn",
        "Question {0} is not answered.":
            "La pregunta {0} no tiene respuesta.",
        "In this test you cannot come back to it. Leave it unanswered?":
            "En esta prueba no podrá volver a ella. ¿Dejarla sin responder?",
        "Review: {0} of {1} answered, {2} flagged":
            "Revisión: {0} de {1} respondidas, {2, plural, one {# marcada} many {# marcadas} other {# marcadas}}",
        "⟨question state⟩answered":
            "respondida",
        "⟨question state⟩not answered":
            "sin responder",
        "⟨review row⟩{0}: {1}":
            "{0}: {1}",
        "{0} more above":
            "{0} más arriba",
        "{0} more below":
            "{0} más abajo",
        "Submit your answers now?":
            "¿Entregar sus respuestas ahora?",
        "Every question is answered.":
            "Todas las preguntas están respondidas.",
        "Every question has an answer.":
            "Todas las preguntas tienen respuesta.",
        "⟨question and how much of it is answered⟩{0} ({1})":
            "{0} ({1})",
        "⟨between question numbers⟩, ":
            ", ",
        "Not answered: {0, plural, one {question {1}} other {questions {1}}}":
            "Sin responder: {0, plural, one {pregunta {1}} many {preguntas {1}} other {preguntas {1}}}",
        "{0, plural, one {# question not answered} other {# questions not answered}}; first: {1} …":
            "{0, plural, one {# pregunta sin responder} many {# preguntas sin responder} other {# preguntas sin responder}}; primeras: {1} …",
        "{0, plural, one {# question not answered} other {# questions not answered}}":
            "{0, plural, one {# pregunta sin responder} many {# preguntas sin responder} other {# preguntas sin responder}}",
        "Flagged: {0, plural, one {question {1}} other {questions {1}}}":
            "{0, plural, one {Marcada: pregunta {1}} many {Marcadas: preguntas {1}} other {Marcadas: preguntas {1}}}",
        "{0, plural, one {# question flagged} other {# questions flagged}}; first: {1} …":
            "{0, plural, one {# pregunta marcada} many {# preguntas marcadas} other {# preguntas marcadas}}; primeras: {1} …",
        "{0, plural, one {# question flagged} other {# questions flagged}}":
            "{0, plural, one {# pregunta marcada} many {# preguntas marcadas} other {# preguntas marcadas}}",
        "Part answered: {0, plural, one {question {1}} other {questions {1}}}":
            "{0, plural, one {Respuesta parcial: pregunta {1}} many {Respuestas parciales: preguntas {1}} other {Respuestas parciales: preguntas {1}}}",
        "{0, plural, one {# question part answered} other {# questions part answered}}; first: {1} …":
            "{0, plural, one {# pregunta con respuesta parcial} many {# preguntas con respuesta parcial} other {# preguntas con respuesta parcial}}; primeras: {1} …",
        "{0, plural, one {# question part answered} other {# questions part answered}}":
            "{0, plural, one {# pregunta con respuesta parcial} many {# preguntas con respuesta parcial} other {# preguntas con respuesta parcial}}",
        "{2}: {0, plural, one {question {1}} other {questions {1}}}":
            "{2}: {0, plural, one {pregunta {1}} many {preguntas {1}} other {preguntas {1}}}",
        "{2}: {0, plural, one {# question} other {# questions}}; first: {1} …":
            "{2}: {0, plural, one {# pregunta} many {# preguntas} other {# preguntas}}; primeras: {1} …",
        "{2}: {0, plural, one {# question} other {# questions}}":
            "{2}: {0, plural, one {# pregunta} many {# preguntas} other {# preguntas}}",
        "Ask your proctor to end this session.":
            "Pida a su supervisor que termine esta sesión.",
        "Your answers are saved. Esc returns to the test.":
            "Sus respuestas están guardadas. Esc vuelve a la prueba.",
        "Your answers are kept and submitted as they are.":
            "Sus respuestas se conservan y se entregan tal como están.",
        "Message from the proctor":
            "Mensaje del supervisor",
        "Press any key to close this message.":
            "Pulse cualquier tecla para cerrar este mensaje.",
        "Your answers are saved. Ctrl-T says the time left; F12 calls the proctor.":
            "Sus respuestas están guardadas. Ctrl-T indica el tiempo restante; F12 llama al supervisor.",
        "Your answers were submitted.":
            "Sus respuestas se han entregado.",
        "Time is up: your answers were saved and submitted.":
            "Se acabó el tiempo: sus respuestas se han guardado y entregado.",
        "The proctor ended this session. Your answers were saved.":
            "El supervisor ha terminado esta sesión. Sus respuestas se han guardado.",
        "You ended this practice session. Your answers were saved.":
            "Ha terminado esta sesión de práctica. Sus respuestas se han guardado.",
        "⟨receipt⟩Candidate":
            "Participante",
        "⟨receipt⟩Session":
            "Sesión",
        "⟨receipt⟩Time used":
            "Tiempo usado",
        "⟨receipt⟩Answered":
            "Respondidas",
        "⟨receipt⟩{0} of {1}":
            "{0} de {1}",
        "⟨receipt⟩Score":
            "Puntuación",
        "{0} of {1} points":
            "{0} de {1} puntos",
        "{0} of {1} points ({2} still to be marked by a person)":
            "{0} de {1} puntos ({2} pendientes de corrección por una persona)",
        "given by your proctor, who holds the answer key":
            "la asigna el supervisor, que tiene las respuestas correctas",
        "shown once this seat's answers reach the store":
            "se muestra cuando las respuestas de este puesto lleguen al almacén",
        "Tell your proctor: {0}":
            "Avise a su supervisor: {0}",
        "This terminal is no longer locked.":
            "Este terminal ya no está bloqueado.",
        "Keys":
            "Teclas",
        "lines {0}–{1} of {2}":
            "líneas {0}–{1} de {2}",
        "Candidate number: ":
            "Número de candidato: ",
        "Candidate code (not shown): ":
            "Código de candidato (oculto): ",
        "Type the number on your candidate card.":
            "Escriba el número de su tarjeta de candidato.",
        "Candidate {0} is not on the roster of this room. Check the number, or ask the proctor.":
            "El candidato {0} no está en la lista de esta sala. Compruebe el número o consulte al supervisor.",
        "That candidate number and code do not match the roster. Check your card, or ask the proctor.":
            "Ese número y ese código de candidato no coinciden con la lista. Compruebe su tarjeta o consulte al supervisor.",
        "Candidate {0} is held after too many wrong codes. Ask the proctor.":
            "El candidato {0} está retenido tras demasiados códigos erróneos. Consulte al supervisor.",
        "Candidate {0} is already seated at {1}; the proctor has been shown both seats. Ask the proctor.":
            "El candidato {0} ya está sentado en el puesto {1}; el supervisor ve los dos puestos. Consulte al supervisor.",
        "{0} — is this you? {1}/N":
            "{0} — ¿es usted? {1}/N",
        "{0} ({1}) has a session at seat {2}. Ask the proctor to move it to this seat? {3}/N":
            "{0} ({1}) tiene una sesión en el puesto {2}. ¿Pedir al supervisor que la traslade a este puesto? {3}/N",
        "Waiting for the proctor to move your session here from seat {0}.":
            "Esperando a que el supervisor traslade aquí su sesión desde el puesto {0}.",
        "⟨answer⟩yes":
            "sí",
        "⟨identification⟩no candidate number was given; nothing was started":
            "no se dio ningún número de candidato; no se empezó nada",
        "⟨identification⟩no candidate code was given; nothing was started":
            "no se dio ningún código de candidato; no se empezó nada",
        "⟨identification⟩the candidate was not identified; nothing was started — ask the proctor":
            "el candidato no fue identificado; no se empezó nada — consulte al supervisor",
    ]
}

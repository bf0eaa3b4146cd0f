extension Japanese {
    static let screens: [String: String] = [
        "Candidate: {0}":
            "受験者：{0}",
        "(not given)":
            "（未指定）",
        "{0, plural, one {# question} other {# questions}}":
            "{0, plural, other {全 # 問}}",
        "time allowed {0}":
            "制限時間 {0}",
        "no time limit":
            "制限時間なし",
        "no going back":
            "前の問題には戻れません",
        "move freely between questions":
            "問題間を自由に移動できます",
        "During this assessment":
            "この試験の間",
        "Pasting: blocked and logged":
            "貼り付け：禁止（記録されます）",
        "Pasting: allowed":
            "貼り付け：可",
        "Clipboards: cleared at start and end":
            "クリップボード：開始時と終了時に消去",
        "Clipboards: left alone":
            "クリップボード：変更なし",
        "Ctrl-C: end this practice test (asks first; your answers are kept)":
            "Ctrl-C：この練習テストを終了（確認があります。解答は保持されます）",
        "Ctrl-C / Ctrl-Z: ask your proctor":
            "Ctrl-C / Ctrl-Z：試験監督者に申し出てください",
        "Ctrl-C / Ctrl-Z: leave (saved, resumable)":
            "Ctrl-C / Ctrl-Z：中断（保存され、再開できます）",
        "Leaving this window: logged":
            "ウィンドウの切り替え：記録されます",
        "Leaving this window: not logged":
            "ウィンドウの切り替え：記録されません",
        "tmux/screen: refused":
            "tmux/screen：使用不可",
        "tmux/screen: allowed":
            "tmux/screen：使用可",
        "Injected code, debuggers: refused":
            "注入コード・デバッガー：使用不可",
        "Injected code: allowed":
            "注入コード：使用可",
        "SSH: refused (local console only)":
            "SSH：使用不可（ローカルコンソールのみ）",
        "SSH: allowed":
            "SSH：使用可",
        "Ends itself after {0} at most":
            "最長 {0} で自動的に終了します",
        "Never offered: autocorrect, spell check, predictive text, lookup, clipboard, extensions.":
            "提供されない機能：自動修正、スペルチェック、予測入力、辞書検索、クリップボード、拡張機能。",
        "Waiting for the proctor to start. Nothing is locked and no time runs yet.":
            "試験監督者による開始を待っています。まだ何もロックされておらず、時間も計測されていません。",
        "Seat key: {0} (the proctor checks it before starting)":
            "座席キー：{0}（開始前に試験監督者が確認します）",
        "The proctor enters the passphrase to start.":
            "試験監督者がパスフレーズを入力して開始します。",
        "Proctor passphrase:":
            "試験監督者のパスフレーズ：",
        "This terminal will be locked to this test until you submit, for at most {0}.":
            "この端末は、解答を提出するまで（最長 {0}）この試験専用にロックされます。",
        "Pasting, other programs and leaving with Ctrl-C or Ctrl-Z will not be possible until then.":
            "それまでは、貼り付け、他のプログラムの使用、Ctrl-C や Ctrl-Z による終了はできません。",
        "Pasting and other programs will not be possible until then; Ctrl-C asks whether to end this practice test.":
            "それまでは、貼り付けや他のプログラムの使用はできません。Ctrl-C を押すと、この練習テストを終了するか確認します。",
        "Begin? {0}/N":
            "開始しますか？ {0}/N",
        "This terminal is now locked to Carrel":
            "この端末は Carrel 専用にロックされました",
        "Press any key for the first question.":
            "何かキーを押すと最初の問題が表示されます。",
        "Please enlarge the terminal to at least {0}×{1} (now {2}×{3}).":
            "端末を {0}×{1} 以上に広げてください（現在 {2}×{3}）。",
        "Please enlarge the terminal to at least {0}×{1} (now {2}×{3}). Your time keeps counting; keys do nothing until the test fits.":
            "端末を {0}×{1} 以上に広げてください（現在 {2}×{3}）。時間は経過し続けます。試験が画面に収まるまでキー操作は無効です。",
        "End this practice test now?":
            "この練習テストを今すぐ終了しますか？",
        "Submit? Enlarge the terminal to see what is unanswered":
            "提出しますか？ 未解答の問題を確認するには端末を広げてください",
        "Question {0} of {1}":
            "問題 {0}（全 {1} 問）",
        "⟨save⟩saved":
            "保存済み",
        "⟨save⟩saving":
            "保存中",
        "not saved ({0}), retrying":
            "未保存（{0}）、再試行中",
        "section {0}":
            "セクション {0}",
        "⟨question state⟩flagged":
            "マーク付き",
        "part answered: {0}":
            "一部解答：{0}",
        "⟨question state⟩part answered":
            "一部解答",
        "paused by the proctor":
            "試験監督者により一時停止中",
        "⟨header⟩paused":
            "一時停止中",
        "⟨between parts of a line⟩, ":
            "、",
        "Ctrl-T: time left":
            "Ctrl-T：残り時間",
        "clock hidden (Ctrl-K)":
            "時計非表示（Ctrl-K）",
        "proctor called":
            "試験監督者を呼び出し中",
        "the proctor is coming":
            "試験監督者が向かっています",
        "{0, plural, one {# line above} other {# lines above}}: PgUp":
            "{0, plural, other {上に # 行}}：PgUp",
        "{0, plural, one {# more line below} other {# more lines below}}: PgDn":
            "{0, plural, other {下にあと # 行}}：PgDn",
        "Question {0} is not answered.":
            "問題 {0} は未解答です。",
        "In this test you cannot come back to it. Leave it unanswered?":
            "この試験では、この問題に戻ることはできません。未解答のままにしますか？",
        "Review: {0} of {1} answered, {2} flagged":
            "見直し：{1} 問中 {0} 問解答済み、マーク付き {2} 問",
        "⟨question state⟩answered":
            "解答済み",
        "⟨question state⟩not answered":
            "未解答",
        "⟨review row⟩{0}: {1}":
            "{0}：{1}",
        "{0} more above":
            "上にあと {0} 問",
        "{0} more below":
            "下にあと {0} 問",
        "Submit your answers now?":
            "解答を今すぐ提出しますか？",
        "Every question is answered.":
            "すべての問題に解答済みです。",
        "Every question has an answer.":
            "すべての問題に解答があります。",
        "⟨question and how much of it is answered⟩{0} ({1})":
            "{0}（{1}）",
        "⟨between question numbers⟩, ":
            ", ",
        "Not answered: {0, plural, one {question {1}} other {questions {1}}}":
            "未解答：{0, plural, other {問題 {1}}}",
        "{0, plural, one {# question not answered} other {# questions not answered}}; first: {1} …":
            "{0, plural, other {未解答の問題 # 問}}。最初の問題：{1} …",
        "{0, plural, one {# question not answered} other {# questions not answered}}":
            "{0, plural, other {未解答の問題 # 問}}",
        "Flagged: {0, plural, one {question {1}} other {questions {1}}}":
            "マーク付き：{0, plural, other {問題 {1}}}",
        "{0, plural, one {# question flagged} other {# questions flagged}}; first: {1} …":
            "{0, plural, other {マーク付きの問題 # 問}}。最初の問題：{1} …",
        "{0, plural, one {# question flagged} other {# questions flagged}}":
            "{0, plural, other {マーク付きの問題 # 問}}",
        "Part answered: {0, plural, one {question {1}} other {questions {1}}}":
            "一部解答：{0, plural, other {問題 {1}}}",
        "{0, plural, one {# question part answered} other {# questions part answered}}; first: {1} …":
            "{0, plural, other {一部解答の問題 # 問}}。最初の問題：{1} …",
        "{0, plural, one {# question part answered} other {# questions part answered}}":
            "{0, plural, other {一部解答の問題 # 問}}",
        "{2}: {0, plural, one {question {1}} other {questions {1}}}":
            "{2}：{0, plural, other {問題 {1}}}",
        "{2}: {0, plural, one {# question} other {# questions}}; first: {1} …":
            "{2}：{0, plural, other {# 問}}。最初の問題：{1} …",
        "{2}: {0, plural, one {# question} other {# questions}}":
            "{2}：{0, plural, other {# 問}}",
        "Ask your proctor to end this session.":
            "このセッションを終了するには、試験監督者に依頼してください。",
        "Your answers are saved. Esc returns to the test.":
            "解答は保存されています。Esc で試験に戻ります。",
        "Your answers are kept and submitted as they are.":
            "解答はそのまま保持され、提出されます。",
        "Message from the proctor":
            "試験監督者からのメッセージ",
        "Press any key to close this message.":
            "何かキーを押すと、このメッセージを閉じます。",
        "Your answers are saved. Ctrl-T says the time left; F12 calls the proctor.":
            "解答は保存されています。Ctrl-T で残り時間を確認でき、F12 で試験監督者を呼び出せます。",
        "Your answers were submitted.":
            "解答を提出しました。",
        "Time is up: your answers were saved and submitted.":
            "時間切れです。解答は保存され、提出されました。",
        "The proctor ended this session. Your answers were saved.":
            "試験監督者がこのセッションを終了しました。解答は保存されています。",
        "You ended this practice session. Your answers were saved.":
            "この練習セッションを終了しました。解答は保存されています。",
        "⟨receipt⟩Candidate":
            "受験者",
        "⟨receipt⟩Session":
            "セッション",
        "⟨receipt⟩Time used":
            "使用時間",
        "⟨receipt⟩Answered":
            "解答数",
        "⟨receipt⟩{0} of {1}":
            "{1} 問中 {0} 問",
        "⟨receipt⟩Score":
            "得点",
        "{0} of {1} points":
            "{1} 点中 {0} 点",
        "{0} of {1} points ({2} still to be marked by a person)":
            "{1} 点中 {0} 点（うち {2} 点分は採点者による採点待ち）",
        "given by your proctor, who holds the answer key":
            "解答を持つ試験監督者が採点します",
        "shown once this seat's answers reach the store":
            "この座席の解答がストアに届くと表示されます",
        "Tell your proctor: {0}":
            "試験監督者に伝えてください：{0}",
        "This terminal is no longer locked.":
            "この端末のロックは解除されました。",
        "Keys":
            "キー一覧",
        "lines {0}–{1} of {2}":
            "{2} 行中 {0}–{1} 行",
        "Candidate number: ":
            "受験番号：",
        "Candidate code (not shown): ":
            "受験者コード（表示されません）：",
        "Type the number on your candidate card.":
            "受験票の番号を入力してください。",
        "Candidate {0} is not on the roster of this room. Check the number, or ask the proctor.":
            "受験番号 {0} はこの教室の名簿にありません。番号を確認するか、試験監督者に尋ねてください。",
        "That candidate number and code do not match the roster. Check your card, or ask the proctor.":
            "受験番号とコードが名簿と一致しません。受験票を確認するか、試験監督者に尋ねてください。",
        "Candidate {0} is held after too many wrong codes. Ask the proctor.":
            "受験番号 {0} はコードの誤りが多すぎるため保留されています。試験監督者に尋ねてください。",
        "Candidate {0} is already seated at {1}; the proctor has been shown both seats. Ask the proctor.":
            "受験番号 {0} はすでに座席 {1} に着席しています。試験監督者には両方の座席が表示されています。試験監督者に尋ねてください。",
        "{0} — is this you? {1}/N":
            "{0} さんですか？ {1}/N",
        "{0} ({1}) has a session at seat {2}. Ask the proctor to move it to this seat? {3}/N":
            "{0}（{1}）さんは座席 {2} にセッションがあります。この座席に移すよう試験監督者に依頼しますか？ {3}/N",
        "Waiting for the proctor to move your session here from seat {0}.":
            "試験監督者が座席 {0} からこの座席にセッションを移すのを待っています。",
        "⟨answer⟩yes":
            "はい",
        "⟨identification⟩no candidate number was given; nothing was started":
            "受験番号が入力されませんでした。何も開始していません",
        "⟨identification⟩no candidate code was given; nothing was started":
            "受験者コードが入力されませんでした。何も開始していません",
        "⟨identification⟩the candidate was not identified; nothing was started — ask the proctor":
            "受験者が確認できませんでした。何も開始していません — 試験監督者に尋ねてください",
    ]
}

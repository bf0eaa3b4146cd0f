#compdef carrel

__carrel_complete() {
    local -ar non_empty_completions=("${@:#(|:*)}")
    local -ar empty_completions=("${(M)@:#(|:*)}")
    _describe -V '' non_empty_completions -- empty_completions -P $'\'\''
}

__carrel_custom_complete() {
    local -a completions
    completions=("${(@f)"$("${command_name}" "${@}" "${command_line[@]}")"}")
    if [[ "${#completions[@]}" -gt 1 ]]; then
        __carrel_complete "${completions[@]:0:-1}"
    fi
}

__carrel_cursor_index_in_current_word() {
    if [[ -z "${QIPREFIX}${IPREFIX}${PREFIX}" ]]; then
        printf 0
    else
        printf %s "${#${(z)LBUFFER}[-1]}"
    fi
}

_carrel() {
    emulate -RL zsh -G
    setopt extendedglob nullglob numericglobsort
    unsetopt aliases banghist

    local -xr SAP_SHELL=zsh
    local -x SAP_SHELL_VERSION
    SAP_SHELL_VERSION="$(builtin emulate zsh -c 'printf %s "${ZSH_VERSION}"')"
    local -r SAP_SHELL_VERSION

    local context state state_descr line
    local -A opt_args

    local -r command_name="${words[1]}"
    local -ar command_line=("${words[@]}")
    local -ir current_word_index="$((CURRENT - 1))"

    local -i ret=1
    local -ar arg_specs=(
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
        '(-): :->command'
        '(-)*:: :->arg'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0
    case "${state}" in
    command)
        local -ar subcommands=(
            'take:Launch a locked assessment session in this terminal.'
            'demo:The workshop playground: begin and end a real session, try typing and pasting, watch the log.'
            'validate:Check assessment files and list every problem.'
            'inspect:Summarise an assessment: sections, items, points, time, policy, fingerprint.'
            'import:Convert Moodle XML, GIFT, Aiken or Cloze banks and QTI 2.1/3.0 items or packages into an assessment.'
            'passphrase:Read a proctor passphrase twice and print the hash and signing-key lines for an assessment.'
            'seal:Encrypt an assessment under its proctor passphrase, for labs and shared computers.'
            'status:Show whether a session holds the lock, and any interrupted sessions.'
            'resume:Continue an interrupted session where it stopped (proctor).'
            'unlock:End an interrupted session (or clear a stale lock) as the proctor.'
            'results:Collect results: list sessions, show one with its integrity report, export a gradebook, mark essays.'
            'proctor:Watch a room (the console, or --json) and act on its seats.'
            'room:Open, show or close a room'\''s plan in the lab'\''s shared store (proctor).'
            'store:Set up a lab'\''s shared store (the database'\''s owner, once).'
            'keys:List the keys of the test screen, as F1 shows them during a test (--all: of every screen).'
            'seat:Enrol this lab machine, so that its proctor starts its seats without a look at each.'
            'help:Show subcommand help information.'
        )
        _describe -V subcommand subcommands && ret=0
        ;;
    arg)
        case "${words[1]}" in
        take|demo|validate|inspect|import|passphrase|seal|status|resume|unlock|results|proctor|room|store|keys|seat|help)
            "_carrel_${words[1]}" && ret=0
            ;;
        esac
        ;;
    esac

    return "${ret}"
}

_carrel_take() {
    local -i ret=1
    local -ar ___extra_time=('1.5' '+15m' 'unlimited')
    local -ar ___theme=('default' 'mono' 'contrast')
    local -ar arg_specs=(
        ':file:'
        '--candidate[The candidate'\''s name, shown on screen and in the result.]:candidate:'
        '--extra-time[Extra time\: a multiplier from 1 to 10 (1.5), added time (+15m), or unlimited.]:time:{__carrel_complete "${___extra_time[@]}"}'
        '--screen-reader[Keep the cursor on the focused element and never redraw by itself.]'
        '--theme[default, mono (also chosen by a non-empty NO_COLOR) or contrast.]:theme:{__carrel_complete "${___theme[@]}"}'
        '--language[The language of the screens\: en, fr, de, es, ja, it, pt-BR, nl, pl, sv, fi, zh-Hans or ko (else the roster'\''s, the assessment'\''s language key, LC_ALL/LC_MESSAGES/LANG, English).]:code:'
        '--state-dir[Keep the journal, results and lock here (also CARREL_STATE_DIR).]:dir:'
        '--shared[The lab'\''s shared store\: a PostgreSQL URL (also CARREL_SHARED).]:url:'
        '--room[The room this seat belongs to (also CARREL_ROOM).]:name:'
        '--seat[This seat'\''s name in the room (default\: host and terminal).]:name:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_carrel_demo() {
    local -i ret=1
    local -ar arg_specs=(
        '--workshop[The assessment F5 opens (default\: Assessments/workshop.yaml when present).]:workshop:'
        '--theme[default, mono (also chosen by NO_COLOR) or contrast.]:theme:'
        '--language[The language of the screens\: en, fr, de, es, ja, it, pt-BR, nl, pl, sv, fi, zh-Hans or ko (else the roster'\''s, the assessment'\''s language key, LC_ALL/LC_MESSAGES/LANG, English).]:code:'
        '--catalog[A translator'\''s catalog to read the screens in\: checked, then offered for this run; its language is chosen unless --language names another.]:file.po:'
        '--screens[Write every screen of the workshop test, the demo, the console and every box to this file (- for standard output) and exit\: no terminal, no session.]:file:'
        '--size[The size of --screens, in columns and rows.]:columns×rows:'
        '--state-dir[Keep the journal, results and lock here (also CARREL_STATE_DIR).]:dir:'
        '--shared[The lab'\''s shared store\: a PostgreSQL URL (also CARREL_SHARED).]:url:'
        '--room[The room this seat belongs to (also CARREL_ROOM).]:name:'
        '--seat[This seat'\''s name in the room (default\: host and terminal).]:name:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_carrel_validate() {
    local -i ret=1
    local -ar arg_specs=(
        '*:files:'
        '--passphrase-stdin[Open sealed files with the proctor passphrase read from standard input.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_carrel_inspect() {
    local -i ret=1
    local -ar arg_specs=(
        ':file:'
        '--json[Print the summary as JSON.]'
        '--passphrase-stdin[Open a sealed file with the proctor passphrase read from standard input.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_carrel_import() {
    local -i ret=1
    local -ar ___format=('moodle' 'gift' 'aiken' 'cloze' 'qti')
    local -ar ___time_limit=('10m' '45m' '1h' '1h30m')
    local -ar arg_specs=(
        '*:file:'
        '--format[The format of every FILE\: moodle (Moodle XML), gift, aiken, cloze or qti (default\: guessed for each file).]:format:{__carrel_complete "${___format[@]}"}'
        '--out[The assessment file to write (YAML, mode 0600).]:file.yaml:'
        '--id[The assessment'\''s id (default\: from the output file'\''s name).]:id:'
        '--title[The assessment'\''s title (default\: a QTI test'\''s own, else from the input file'\''s name).]:title:'
        '--time-limit[A time limit such as 45m or 1h30m (default\: a QTI test'\''s own, else untimed).]:duration:{__carrel_complete "${___time_limit[@]}"}'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_carrel_passphrase() {
    local -i ret=1
    local -ar arg_specs=(
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_carrel_seal() {
    local -i ret=1
    local -ar arg_specs=(
        ':file.yaml:'
        '--out[The sealed package to write (mode 0600).]:file.carrel:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_carrel_status() {
    local -i ret=1
    local -ar arg_specs=(
        '--state-dir[Keep the journal, results and lock here (also CARREL_STATE_DIR).]:dir:'
        '--json[Print the status as JSON.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_carrel_resume() {
    local -i ret=1
    local -ar ___theme=('default' 'mono' 'contrast')
    local -ar arg_specs=(
        ':session:'
        '--screen-reader[Keep the cursor on the focused element and never redraw by itself.]'
        '--theme[default, mono (also chosen by a non-empty NO_COLOR) or contrast.]:theme:{__carrel_complete "${___theme[@]}"}'
        '--language[The language of the screens\: en, fr, de, es, ja, it, pt-BR, nl, pl, sv, fi, zh-Hans or ko (else the roster'\''s, the assessment'\''s language key, LC_ALL/LC_MESSAGES/LANG, English).]:code:'
        '--state-dir[Keep the journal, results and lock here (also CARREL_STATE_DIR).]:dir:'
        '--shared[The lab'\''s shared store\: a PostgreSQL URL (also CARREL_SHARED).]:url:'
        '--room[The room this seat belongs to (also CARREL_ROOM).]:name:'
        '--seat[This seat'\''s name in the room (default\: host and terminal).]:name:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_carrel_unlock() {
    local -i ret=1
    local -ar arg_specs=(
        '--state-dir[Keep the journal, results and lock here (also CARREL_STATE_DIR).]:dir:'
        '--shared[The lab'\''s shared store\: a PostgreSQL URL (also CARREL_SHARED).]:url:'
        '--room[The room this seat belongs to (also CARREL_ROOM).]:name:'
        '--seat[This seat'\''s name in the room (default\: host and terminal).]:name:'
        ':session:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_carrel_results() {
    local -i ret=1
    local -ar arg_specs=(
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
        '(-): :->command'
        '(-)*:: :->arg'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0
    case "${state}" in
    command)
        local -ar subcommands=(
            'list:List sessions: candidate, assessment, status, score, started, duration.'
            'show:Show one session'\''s result and its integrity report.'
            'export:Export results as JSON (the result documents) or CSV (one row per session, one column per item).'
            'mark:Record a person'\''s mark for an essay (or override an item'\''s score).'
        )
        _describe -V subcommand subcommands && ret=0
        ;;
    arg)
        case "${words[1]}" in
        list|show|export|mark)
            "_carrel_results_${words[1]}" && ret=0
            ;;
        esac
        ;;
    esac

    return "${ret}"
}

_carrel_results_list() {
    local -i ret=1
    local -ar arg_specs=(
        '--assessment[Only this assessment id.]:assessment:'
        '--since[Only sessions started on or after this date (2026-11-22, or a full ISO-8601 time).]:since:'
        '--status[Only this status\: submitted, timed_out, ended_by_proctor, ended_by_candidate, seat_lost, interrupted, active, wrong_test, candidate_twice.]:status:'
        '--json[Print JSON.]'
        '--strict[Exit 65 when a session could not be read.]'
        '--state-dir[Keep the journal, results and lock here (also CARREL_STATE_DIR).]:dir:'
        '--shared[The lab'\''s shared store\: a PostgreSQL URL (also CARREL_SHARED).]:url:'
        '--room[The room this seat belongs to (also CARREL_ROOM).]:name:'
        '--seat[This seat'\''s name in the room (default\: host and terminal).]:name:'
        '--passphrase-stdin[With --shared\: read the proctor passphrase from standard input and check that each session'\''s records and result were written by its seat (a "verified" column; each record that fails is named).]'
        '*--test[With the proctor'\''s passphrase (--passphrase-stdin, or the console'\''s)\: a sealed test (.carrel) whose sessions'\'' seats had no answer key; their responses are scored with it (repeat for several).]:file.carrel:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_carrel_results_show() {
    local -i ret=1
    local -ar arg_specs=(
        ':session:'
        '--json[Print JSON\: the result and the integrity report.]'
        '--strict[Exit 65 when a session could not be read.]'
        '--state-dir[Keep the journal, results and lock here (also CARREL_STATE_DIR).]:dir:'
        '--shared[The lab'\''s shared store\: a PostgreSQL URL (also CARREL_SHARED).]:url:'
        '--room[The room this seat belongs to (also CARREL_ROOM).]:name:'
        '--seat[This seat'\''s name in the room (default\: host and terminal).]:name:'
        '--passphrase-stdin[With --shared\: read the proctor passphrase from standard input and check that each session'\''s records and result were written by its seat (a "verified" column; each record that fails is named).]'
        '*--test[With the proctor'\''s passphrase (--passphrase-stdin, or the console'\''s)\: a sealed test (.carrel) whose sessions'\'' seats had no answer key; their responses are scored with it (repeat for several).]:file.carrel:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_carrel_results_export() {
    local -i ret=1
    local -ar arg_specs=(
        '--format[json or csv.]:format:'
        '--out[Write here (0600, atomically) instead of standard output.]:out:'
        '--assessment[Only this assessment id.]:assessment:'
        '--since[Only sessions started on or after this date (2026-11-22, or a full ISO-8601 time).]:since:'
        '--status[Only this status\: submitted, timed_out, ended_by_proctor, ended_by_candidate, seat_lost, interrupted, active, wrong_test, candidate_twice.]:status:'
        '--strict[Exit 65 when a session could not be read.]'
        '--state-dir[Keep the journal, results and lock here (also CARREL_STATE_DIR).]:dir:'
        '--shared[The lab'\''s shared store\: a PostgreSQL URL (also CARREL_SHARED).]:url:'
        '--room[The room this seat belongs to (also CARREL_ROOM).]:name:'
        '--seat[This seat'\''s name in the room (default\: host and terminal).]:name:'
        '--passphrase-stdin[With --shared\: read the proctor passphrase from standard input and check that each session'\''s records and result were written by its seat (a "verified" column; each record that fails is named).]'
        '*--test[With the proctor'\''s passphrase (--passphrase-stdin, or the console'\''s)\: a sealed test (.carrel) whose sessions'\'' seats had no answer key; their responses are scored with it (repeat for several).]:file.carrel:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_carrel_results_mark() {
    local -i ret=1
    local -ar arg_specs=(
        ':session:'
        ':item:'
        ':points:'
        '--comment[A note kept with the mark, up to 500 characters.]:text:'
        '--state-dir[Keep the journal, results and lock here (also CARREL_STATE_DIR).]:dir:'
        '--shared[The lab'\''s shared store\: a PostgreSQL URL (also CARREL_SHARED).]:url:'
        '--room[The room this seat belongs to (also CARREL_ROOM).]:name:'
        '--seat[This seat'\''s name in the room (default\: host and terminal).]:name:'
        '--passphrase-stdin[With --shared\: read the proctor passphrase from standard input and check that each session'\''s records and result were written by its seat (a "verified" column; each record that fails is named).]'
        '*--test[With the proctor'\''s passphrase (--passphrase-stdin, or the console'\''s)\: a sealed test (.carrel) whose sessions'\'' seats had no answer key; their responses are scored with it (repeat for several).]:file.carrel:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_carrel_proctor() {
    local -i ret=1
    local -ar arg_specs=(
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
        '(-): :->command'
        '(-)*:: :->arg'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0
    case "${state}" in
    command)
        local -ar subcommands=(
            'watch:A live console of every seat in a room (reads the lab'\''s shared store).'
            'start:Start the waiting seats (all of the room, or those named).'
            'move:Move a candidate'\''s session to a spare seat, where it continues with every answer.'
            'lost:End the session of a seat that will never come back: its verified records are its result.'
            'admit:Admit one held-back seat (unknown machine, other Carrel) after reading its seat key on its screen.'
            'release:Let a candidate held after too many wrong codes try again.'
            'pause:Pause seats: their clocks stop and answer keys wait.'
            'resume:Resume paused seats: their clocks run again.'
            'time:Add time to seats (within the session cap).'
            'message:Send one line to seats: shown in a box until the student presses a key, and spoken.'
            'end:End seats'\'' sessions: answers kept and scored, ended by the proctor.'
            'acknowledge:Answer raised hands: the seats show "The proctor is coming".'
        )
        _describe -V subcommand subcommands && ret=0
        ;;
    arg)
        case "${words[1]}" in
        watch|start|move|lost|admit|release|pause|resume|time|message|end|acknowledge)
            "_carrel_proctor_${words[1]}" && ret=0
            ;;
        esac
        ;;
    esac

    return "${ret}"
}

_carrel_proctor_watch() {
    local -i ret=1
    local -ar ___theme=('default' 'mono' 'contrast')
    local -ar arg_specs=(
        '--shared[The lab'\''s shared store\: a PostgreSQL URL (also CARREL_SHARED).]:url:'
        '--room[The room this seat belongs to (also CARREL_ROOM).]:name:'
        '--seat[This seat'\''s name in the room (default\: host and terminal).]:name:'
        '--json[Print one snapshot of the seats as JSON and exit.]'
        '--screen-reader[Keep the cursor on the focused seat; times in whole minutes, so the screen changes only when something happens.]'
        '--theme[default, mono (also chosen by a non-empty NO_COLOR) or contrast.]:theme:{__carrel_complete "${___theme[@]}"}'
        '--language[The language of the screens\: en, fr, de, es, ja, it, pt-BR, nl, pl, sv, fi, zh-Hans or ko (else the roster'\''s, the assessment'\''s language key, LC_ALL/LC_MESSAGES/LANG, English).]:code:'
        '--passphrase-stdin[With --json\: read the proctor passphrase from standard input and check each seat'\''s liveness with the room'\''s key ("verified").]'
        '*--test[With the proctor'\''s passphrase (--passphrase-stdin, or the console'\''s)\: a sealed test (.carrel) whose sessions'\'' seats had no answer key; their responses are scored with it (repeat for several).]:file.carrel:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_carrel_proctor_start() {
    local -i ret=1
    local -ar arg_specs=(
        '--shared[The lab'\''s shared store\: a PostgreSQL URL (also CARREL_SHARED).]:url:'
        '--room[The room (also CARREL_ROOM).]:name:'
        '*--seat[A seat to act on (repeat for several; none\: the whole room).]:seat:'
        '--wait[Seconds to wait for the seats to apply it.]:seconds:'
        '--yes[Send the keys to the seats listed without asking (start only; check the list first).]'
        '--passphrase-stdin[Read the proctor passphrase, which signs the command, from the first line of standard input (asked without echo at a terminal otherwise).]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_carrel_proctor_move() {
    local -i ret=1
    local -ar arg_specs=(
        '--shared[The lab'\''s shared store\: a PostgreSQL URL (also CARREL_SHARED).]:url:'
        '--room[The room (also CARREL_ROOM).]:name:'
        '--from[The seat the session leaves.]:seat:'
        '--to[The spare seat, waiting for the room, that continues it.]:seat:'
        '--wait[Seconds to wait for the store and for the spare to continue the session.]:seconds:'
        '--seat-key[The seat key the spare shows on its screen (needed when several sessions wait at --to).]:key:'
        '--while-connected[Move a session whose seat is still connected (that seat stops and says where the session went).]'
        '--yes[Send the session'\''s keys to the spare without asking (check its seat key first).]'
        '--passphrase-stdin[Read the proctor passphrase from the first line of standard input.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_carrel_proctor_lost() {
    local -i ret=1
    local -ar arg_specs=(
        '--shared[The lab'\''s shared store\: a PostgreSQL URL (also CARREL_SHARED).]:url:'
        '--room[The room (also CARREL_ROOM).]:name:'
        '--seat[The seat whose session ends.]:seat:'
        '--test[The room'\''s test (.yaml, or sealed .carrel opened with the passphrase)\: the session'\''s result is made from its verified records with it.]:file:'
        '--yes[End it without asking.]'
        '--passphrase-stdin[Read the proctor passphrase from the first line of standard input.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_carrel_proctor_admit() {
    local -i ret=1
    local -ar arg_specs=(
        '--shared[The lab'\''s shared store\: a PostgreSQL URL (also CARREL_SHARED).]:url:'
        '--room[The room (also CARREL_ROOM).]:name:'
        '--seat[The seat to admit.]:seat:'
        '--seat-key[The seat key its screen shows (3f2a-91c0-77de-0b14).]:key:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_carrel_proctor_release() {
    local -i ret=1
    local -ar arg_specs=(
        '--shared[The lab'\''s shared store\: a PostgreSQL URL (also CARREL_SHARED).]:url:'
        '--room[The room (also CARREL_ROOM).]:name:'
        '--candidate[The candidate number held.]:number:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_carrel_proctor_pause() {
    local -i ret=1
    local -ar arg_specs=(
        '--shared[The lab'\''s shared store\: a PostgreSQL URL (also CARREL_SHARED).]:url:'
        '--room[The room (also CARREL_ROOM).]:name:'
        '*--seat[A seat to act on (repeat for several; none\: the whole room).]:seat:'
        '--wait[Seconds to wait for the seats to apply it.]:seconds:'
        '--yes[Send the keys to the seats listed without asking (start only; check the list first).]'
        '--passphrase-stdin[Read the proctor passphrase, which signs the command, from the first line of standard input (asked without echo at a terminal otherwise).]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_carrel_proctor_resume() {
    local -i ret=1
    local -ar arg_specs=(
        '--shared[The lab'\''s shared store\: a PostgreSQL URL (also CARREL_SHARED).]:url:'
        '--room[The room (also CARREL_ROOM).]:name:'
        '*--seat[A seat to act on (repeat for several; none\: the whole room).]:seat:'
        '--wait[Seconds to wait for the seats to apply it.]:seconds:'
        '--yes[Send the keys to the seats listed without asking (start only; check the list first).]'
        '--passphrase-stdin[Read the proctor passphrase, which signs the command, from the first line of standard input (asked without echo at a terminal otherwise).]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_carrel_proctor_time() {
    local -i ret=1
    local -ar arg_specs=(
        '--shared[The lab'\''s shared store\: a PostgreSQL URL (also CARREL_SHARED).]:url:'
        '--room[The room (also CARREL_ROOM).]:name:'
        '*--seat[A seat to act on (repeat for several; none\: the whole room).]:seat:'
        '--wait[Seconds to wait for the seats to apply it.]:seconds:'
        '--yes[Send the keys to the seats listed without asking (start only; check the list first).]'
        '--passphrase-stdin[Read the proctor passphrase, which signs the command, from the first line of standard input (asked without echo at a terminal otherwise).]'
        ':+time:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_carrel_proctor_message() {
    local -i ret=1
    local -ar arg_specs=(
        '--shared[The lab'\''s shared store\: a PostgreSQL URL (also CARREL_SHARED).]:url:'
        '--room[The room (also CARREL_ROOM).]:name:'
        '*--seat[A seat to act on (repeat for several; none\: the whole room).]:seat:'
        '--wait[Seconds to wait for the seats to apply it.]:seconds:'
        '--yes[Send the keys to the seats listed without asking (start only; check the list first).]'
        '--passphrase-stdin[Read the proctor passphrase, which signs the command, from the first line of standard input (asked without echo at a terminal otherwise).]'
        ':text:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_carrel_proctor_end() {
    local -i ret=1
    local -ar arg_specs=(
        '--shared[The lab'\''s shared store\: a PostgreSQL URL (also CARREL_SHARED).]:url:'
        '--room[The room (also CARREL_ROOM).]:name:'
        '*--seat[A seat to act on (repeat for several; none\: the whole room).]:seat:'
        '--wait[Seconds to wait for the seats to apply it.]:seconds:'
        '--yes[Send the keys to the seats listed without asking (start only; check the list first).]'
        '--passphrase-stdin[Read the proctor passphrase, which signs the command, from the first line of standard input (asked without echo at a terminal otherwise).]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_carrel_proctor_acknowledge() {
    local -i ret=1
    local -ar arg_specs=(
        '--shared[The lab'\''s shared store\: a PostgreSQL URL (also CARREL_SHARED).]:url:'
        '--room[The room (also CARREL_ROOM).]:name:'
        '*--seat[A seat to act on (repeat for several; none\: the whole room).]:seat:'
        '--wait[Seconds to wait for the seats to apply it.]:seconds:'
        '--yes[Send the keys to the seats listed without asking (start only; check the list first).]'
        '--passphrase-stdin[Read the proctor passphrase, which signs the command, from the first line of standard input (asked without echo at a terminal otherwise).]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_carrel_room() {
    local -i ret=1
    local -ar arg_specs=(
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
        '(-): :->command'
        '(-)*:: :->arg'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0
    case "${state}" in
    command)
        local -ar subcommands=(
            'open:Open a room for a test: its plan, roster and way of starting.'
            'show:Show a room'\''s plan.'
            'close:Close a room: no seat can begin in it any more.'
        )
        _describe -V subcommand subcommands && ret=0
        ;;
    arg)
        case "${words[1]}" in
        open|show|close)
            "_carrel_room_${words[1]}" && ret=0
            ;;
        esac
        ;;
    esac

    return "${ret}"
}

_carrel_room_open() {
    local -i ret=1
    local -ar ___start=('proctor' 'candidate')
    local -ar arg_specs=(
        ':room:'
        ':file:'
        '--roster[The room'\''s roster (CSV with a header).]:roster.csv:'
        '--start[Who starts the seats\: proctor (seats wait) or candidate.]:who:{__carrel_complete "${___start[@]}"}'
        '--shared[The lab'\''s shared store\: a PostgreSQL URL (also CARREL_SHARED).]:url:'
        '--machines[The machines whose waiting seats a start sends keys to without a look\: all, NAME,NAME or any.]:all|NAME,NAME|any:'
        '--lab[With --machines all\: only the machines enrolled in this lab.]:name:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_carrel_room_show() {
    local -i ret=1
    local -ar arg_specs=(
        ':room:'
        '--shared[The lab'\''s shared store\: a PostgreSQL URL (also CARREL_SHARED).]:url:'
        '--json[Print the plan as JSON.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_carrel_room_close() {
    local -i ret=1
    local -ar arg_specs=(
        ':room:'
        '--shared[The lab'\''s shared store\: a PostgreSQL URL (also CARREL_SHARED).]:url:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_carrel_store() {
    local -i ret=1
    local -ar arg_specs=(
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
        '(-): :->command'
        '(-)*:: :->arg'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0
    case "${state}" in
    command)
        local -ar subcommands=(
            'init:Create or update the schema, the seat and proctor roles and their grants.'
        )
        _describe -V subcommand subcommands && ret=0
        ;;
    arg)
        case "${words[1]}" in
        init)
            "_carrel_store_${words[1]}" && ret=0
            ;;
        esac
        ;;
    esac

    return "${ret}"
}

_carrel_store_init() {
    local -i ret=1
    local -ar arg_specs=(
        '--shared[The lab'\''s shared store\: a PostgreSQL URL (also CARREL_SHARED).]:url:'
        '--seat-role[The seats'\'' role.]:seat-role:'
        '--proctor-role[The proctors'\'' role.]:proctor-role:'
        '--proctor-reserve[Connections kept free of seats for proctors.]:proctor-reserve:'
        '--shared-seat-connections[Connections of the shared seat role\: what unenrolled seats (a spare admitted by hand) and practice sessions share; 20 takes a few of each at once. Its password is known to students, who may hold all of them, so keep it small\: enrolled machines log in as their own roles and do not use it.]:n:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_carrel_keys() {
    local -i ret=1
    local -ar ___screen=('start' 'begin' 'question' 'help' 'review' 'skip' 'submit' 'end' 'proctor' 'receipt' 'demo' 'demo-quit' 'console' 'console-empty' 'console-report')
    local -ar arg_specs=(
        '--markdown[Print the list as a Markdown table (the README'\''s).]'
        '--all[List every screen'\''s keys, each under its title.]'
        '--screen[List one screen'\''s keys.]:name:{__carrel_complete "${___screen[@]}"}'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_carrel_seat() {
    local -i ret=1
    local -ar arg_specs=(
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
        '(-): :->command'
        '(-)*:: :->arg'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0
    case "${state}" in
    command)
        local -ar subcommands=(
            'enroll:Enrol this machine (as root): its machine key, the signing helper, and the key'\''s public half in the store.'
            'check:Check that this machine is enrolled and that its helper signs for this Carrel.'
        )
        _describe -V subcommand subcommands && ret=0
        ;;
    arg)
        case "${words[1]}" in
        enroll|check)
            "_carrel_seat_${words[1]}" && ret=0
            ;;
        esac
        ;;
    esac

    return "${ret}"
}

_carrel_seat_enroll() {
    local -i ret=1
    local -ar arg_specs=(
        '--shared[The lab'\''s shared store\: a PostgreSQL URL (also CARREL_SHARED).]:url:'
        '--lab[The lab this machine belongs to (rooms may take all of a lab'\''s machines).]:name:'
        '--machine[This machine'\''s name in the store (default\: its host name).]:name:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_carrel_seat_check() {
    local -i ret=1
    local -ar arg_specs=(
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_carrel_help() {
    local -i ret=1
    local -ar arg_specs=(
        '*:subcommands:'
        '--version[Show the version.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

if [[ "${funcstack[1]}" = _carrel ]]; then
    _carrel "${@}"
else
    compdef _carrel carrel
fi

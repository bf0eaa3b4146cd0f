function __carrel_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __carrel_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __carrel_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __carrel_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __carrel_parse_tokens -S
    set -l unparsed_tokens (__carrel_tokens -pc)
    switch $unparsed_tokens[1]
    case 'carrel'
        __carrel_parse_subcommand 0 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'take'
            __carrel_parse_subcommand 1 'candidate=' 'extra-time=' 'screen-reader' 'theme=' 'language=' 'state-dir=' 'shared=' 'room=' 'seat=' 'version' 'h/help'
        case 'demo'
            __carrel_parse_subcommand 0 'workshop=' 'theme=' 'language=' 'state-dir=' 'shared=' 'room=' 'seat=' 'version' 'h/help'
        case 'validate'
            __carrel_parse_subcommand -r 1 'passphrase-stdin' 'version' 'h/help'
        case 'inspect'
            __carrel_parse_subcommand 1 'json' 'passphrase-stdin' 'version' 'h/help'
        case 'import'
            __carrel_parse_subcommand -r 1 'format=' 'out=' 'id=' 'title=' 'time-limit=' 'version' 'h/help'
        case 'passphrase'
            __carrel_parse_subcommand 0 'version' 'h/help'
        case 'seal'
            __carrel_parse_subcommand 1 'out=' 'version' 'h/help'
        case 'status'
            __carrel_parse_subcommand 0 'state-dir=' 'json' 'version' 'h/help'
        case 'resume'
            __carrel_parse_subcommand 1 'screen-reader' 'theme=' 'language=' 'state-dir=' 'shared=' 'room=' 'seat=' 'version' 'h/help'
        case 'unlock'
            __carrel_parse_subcommand 1 'state-dir=' 'shared=' 'room=' 'seat=' 'version' 'h/help'
        case 'results'
            __carrel_parse_subcommand 0 'version' 'h/help'
            switch $unparsed_tokens[1]
            case 'list'
                __carrel_parse_subcommand 0 'assessment=' 'since=' 'status=' 'json' 'strict' 'state-dir=' 'shared=' 'room=' 'seat=' 'passphrase-stdin' 'test=+' 'version' 'h/help'
            case 'show'
                __carrel_parse_subcommand 1 'json' 'strict' 'state-dir=' 'shared=' 'room=' 'seat=' 'passphrase-stdin' 'test=+' 'version' 'h/help'
            case 'export'
                __carrel_parse_subcommand 0 'format=' 'out=' 'assessment=' 'since=' 'status=' 'strict' 'state-dir=' 'shared=' 'room=' 'seat=' 'passphrase-stdin' 'test=+' 'version' 'h/help'
            case 'mark'
                __carrel_parse_subcommand -r 4 'comment=' 'state-dir=' 'shared=' 'room=' 'seat=' 'passphrase-stdin' 'test=+' 'version' 'h/help'
            end
        case 'proctor'
            __carrel_parse_subcommand 0 'version' 'h/help'
            switch $unparsed_tokens[1]
            case 'watch'
                __carrel_parse_subcommand 0 'shared=' 'room=' 'seat=' 'json' 'screen-reader' 'theme=' 'language=' 'passphrase-stdin' 'test=+' 'version' 'h/help'
            case 'start'
                __carrel_parse_subcommand 0 'shared=' 'room=' 'seat=+' 'wait=' 'yes' 'passphrase-stdin' 'version' 'h/help'
            case 'admit'
                __carrel_parse_subcommand 0 'shared=' 'room=' 'seat=' 'seat-key=' 'version' 'h/help'
            case 'release'
                __carrel_parse_subcommand 0 'shared=' 'room=' 'candidate=' 'version' 'h/help'
            case 'pause'
                __carrel_parse_subcommand 0 'shared=' 'room=' 'seat=+' 'wait=' 'yes' 'passphrase-stdin' 'version' 'h/help'
            case 'resume'
                __carrel_parse_subcommand 0 'shared=' 'room=' 'seat=+' 'wait=' 'yes' 'passphrase-stdin' 'version' 'h/help'
            case 'time'
                __carrel_parse_subcommand 1 'shared=' 'room=' 'seat=+' 'wait=' 'yes' 'passphrase-stdin' 'version' 'h/help'
            case 'message'
                __carrel_parse_subcommand 1 'shared=' 'room=' 'seat=+' 'wait=' 'yes' 'passphrase-stdin' 'version' 'h/help'
            case 'end'
                __carrel_parse_subcommand 0 'shared=' 'room=' 'seat=+' 'wait=' 'yes' 'passphrase-stdin' 'version' 'h/help'
            case 'acknowledge'
                __carrel_parse_subcommand 0 'shared=' 'room=' 'seat=+' 'wait=' 'yes' 'passphrase-stdin' 'version' 'h/help'
            end
        case 'room'
            __carrel_parse_subcommand 0 'version' 'h/help'
            switch $unparsed_tokens[1]
            case 'open'
                __carrel_parse_subcommand 2 'roster=' 'start=' 'shared=' 'machines=' 'lab=' 'version' 'h/help'
            case 'show'
                __carrel_parse_subcommand 1 'shared=' 'json' 'version' 'h/help'
            case 'close'
                __carrel_parse_subcommand 1 'shared=' 'version' 'h/help'
            end
        case 'store'
            __carrel_parse_subcommand 0 'version' 'h/help'
            switch $unparsed_tokens[1]
            case 'init'
                __carrel_parse_subcommand 0 'shared=' 'seat-role=' 'proctor-role=' 'proctor-reserve=' 'shared-seat-connections=' 'version' 'h/help'
            end
        case 'keys'
            __carrel_parse_subcommand 0 'markdown' 'all' 'screen=' 'version' 'h/help'
        case 'seat'
            __carrel_parse_subcommand 0 'version' 'h/help'
            switch $unparsed_tokens[1]
            case 'enroll'
                __carrel_parse_subcommand 0 'shared=' 'lab=' 'machine=' 'version' 'h/help'
            case 'check'
                __carrel_parse_subcommand 0 'version' 'h/help'
            end
        case 'help'
            __carrel_parse_subcommand -r 1 'version'
        end
    end
end

function __carrel_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __carrel_parse_subcommand -S -a positional_count
    argparse -s r -- $argv
    set -l option_specs $argv[2..]
    set -l is_repeating_positional $_flag_r
    set -el _flag_r
    set -a commands $unparsed_tokens[1]
    set positional_index 0
    while true
        set -e unparsed_tokens[1]
        argparse -sn "$commands" $option_specs -- $unparsed_tokens 2> /dev/null
        set unparsed_tokens $argv
        set positional_index (math $positional_index + 1)
        for non_repeating_flag_or_option in $non_repeating_flags_or_options
            if set -ql "_flag_$(string replace -a - _ -- $non_repeating_flag_or_option)"
                set non_repeating_flags_or_options_absent 1
                break
            end
        end
        test (count $unparsed_tokens) -eq 0 -o \( -z "$is_repeating_positional" -a "$positional_index" -gt "$positional_count" \) && break
    end
end

function __carrel_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __carrel_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__carrel_tokens -p)
    if test -z "$(__carrel_tokens -t)"
        set -l index (count (__carrel_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'carrel' -f
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel" version' -l 'version' -d 'Show the version.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_positional "carrel" -eq 1' -fa 'take' -d 'Launch a locked assessment session in this terminal.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_positional "carrel" -eq 1' -fa 'demo' -d 'The workshop playground: begin and end a real session, try typing and pasting, watch the log.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_positional "carrel" -eq 1' -fa 'validate' -d 'Check assessment files and list every problem.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_positional "carrel" -eq 1' -fa 'inspect' -d 'Summarise an assessment: sections, items, points, time, policy, fingerprint.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_positional "carrel" -eq 1' -fa 'import' -d 'Convert Moodle XML, GIFT, Aiken or Cloze banks and QTI 2.1/3.0 items or packages into an assessment.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_positional "carrel" -eq 1' -fa 'passphrase' -d 'Read a proctor passphrase twice and print the hash and signing-key lines for an assessment.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_positional "carrel" -eq 1' -fa 'seal' -d 'Encrypt an assessment under its proctor passphrase, for labs and shared computers.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_positional "carrel" -eq 1' -fa 'status' -d 'Show whether a session holds the lock, and any interrupted sessions.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_positional "carrel" -eq 1' -fa 'resume' -d 'Continue an interrupted session where it stopped (proctor).'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_positional "carrel" -eq 1' -fa 'unlock' -d 'End an interrupted session (or clear a stale lock) as the proctor.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_positional "carrel" -eq 1' -fa 'results' -d 'Collect results: list sessions, show one with its integrity report, export a gradebook, mark essays.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_positional "carrel" -eq 1' -fa 'proctor' -d 'Watch a room (the console, or --json) and act on its seats.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_positional "carrel" -eq 1' -fa 'room' -d 'Open, show or close a room\'s plan in the lab\'s shared store (proctor).'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_positional "carrel" -eq 1' -fa 'store' -d 'Set up a lab\'s shared store (the database\'s owner, once).'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_positional "carrel" -eq 1' -fa 'keys' -d 'List the keys of the test screen, as F1 shows them during a test (--all: of every screen).'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_positional "carrel" -eq 1' -fa 'seat' -d 'Enrol this lab machine, so that its proctor starts its seats without a look at each.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_positional "carrel" -eq 1' -fa 'help' -d 'Show subcommand help information.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel take" candidate' -l 'candidate' -d 'The candidate\'s name, shown on screen and in the result.' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel take" extra-time' -l 'extra-time' -d 'Extra time: a multiplier from 1 to 10 (1.5), added time (+15m), or unlimited.' -rfka '1.5 +15m unlimited'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel take" screen-reader' -l 'screen-reader' -d 'Keep the cursor on the focused element and never redraw by itself.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel take" theme' -l 'theme' -d 'default, mono (also chosen by a non-empty NO_COLOR) or contrast.' -rfka 'default mono contrast'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel take" language' -l 'language' -d 'The language of the screens: en, fr, de, es or ja (else the roster\'s, the assessment\'s language key, LC_ALL/LC_MESSAGES/LANG, English).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel take" state-dir' -l 'state-dir' -d 'Keep the journal, results and lock here (also CARREL_STATE_DIR).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel take" shared' -l 'shared' -d 'The lab\'s shared store: a PostgreSQL URL (also CARREL_SHARED).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel take" room' -l 'room' -d 'The room this seat belongs to (also CARREL_ROOM).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel take" seat' -l 'seat' -d 'This seat\'s name in the room (default: host and terminal).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel take" version' -l 'version' -d 'Show the version.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel take" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel demo" workshop' -l 'workshop' -d 'The assessment F5 opens (default: Assessments/workshop.yaml when present).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel demo" theme' -l 'theme' -d 'default, mono (also chosen by NO_COLOR) or contrast.' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel demo" language' -l 'language' -d 'The language of the screens: en, fr, de, es or ja (else the roster\'s, the assessment\'s language key, LC_ALL/LC_MESSAGES/LANG, English).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel demo" state-dir' -l 'state-dir' -d 'Keep the journal, results and lock here (also CARREL_STATE_DIR).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel demo" shared' -l 'shared' -d 'The lab\'s shared store: a PostgreSQL URL (also CARREL_SHARED).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel demo" room' -l 'room' -d 'The room this seat belongs to (also CARREL_ROOM).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel demo" seat' -l 'seat' -d 'This seat\'s name in the room (default: host and terminal).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel demo" version' -l 'version' -d 'Show the version.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel demo" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel validate" passphrase-stdin' -l 'passphrase-stdin' -d 'Open sealed files with the proctor passphrase read from standard input.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel validate" version' -l 'version' -d 'Show the version.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel validate" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel inspect" json' -l 'json' -d 'Print the summary as JSON.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel inspect" passphrase-stdin' -l 'passphrase-stdin' -d 'Open a sealed file with the proctor passphrase read from standard input.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel inspect" version' -l 'version' -d 'Show the version.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel inspect" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel import" format' -l 'format' -d 'The format of every FILE: moodle (Moodle XML), gift, aiken, cloze or qti (default: guessed for each file).' -rfka 'moodle gift aiken cloze qti'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel import" out' -l 'out' -d 'The assessment file to write (YAML, mode 0600).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel import" id' -l 'id' -d 'The assessment\'s id (default: from the output file\'s name).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel import" title' -l 'title' -d 'The assessment\'s title (default: a QTI test\'s own, else from the input file\'s name).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel import" time-limit' -l 'time-limit' -d 'A time limit such as 45m or 1h30m (default: a QTI test\'s own, else untimed).' -rfka '10m 45m 1h 1h30m'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel import" version' -l 'version' -d 'Show the version.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel import" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel passphrase" version' -l 'version' -d 'Show the version.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel passphrase" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel seal" out' -l 'out' -d 'The sealed package to write (mode 0600).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel seal" version' -l 'version' -d 'Show the version.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel seal" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel status" state-dir' -l 'state-dir' -d 'Keep the journal, results and lock here (also CARREL_STATE_DIR).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel status" json' -l 'json' -d 'Print the status as JSON.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel status" version' -l 'version' -d 'Show the version.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel status" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel resume" screen-reader' -l 'screen-reader' -d 'Keep the cursor on the focused element and never redraw by itself.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel resume" theme' -l 'theme' -d 'default, mono (also chosen by a non-empty NO_COLOR) or contrast.' -rfka 'default mono contrast'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel resume" language' -l 'language' -d 'The language of the screens: en, fr, de, es or ja (else the roster\'s, the assessment\'s language key, LC_ALL/LC_MESSAGES/LANG, English).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel resume" state-dir' -l 'state-dir' -d 'Keep the journal, results and lock here (also CARREL_STATE_DIR).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel resume" shared' -l 'shared' -d 'The lab\'s shared store: a PostgreSQL URL (also CARREL_SHARED).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel resume" room' -l 'room' -d 'The room this seat belongs to (also CARREL_ROOM).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel resume" seat' -l 'seat' -d 'This seat\'s name in the room (default: host and terminal).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel resume" version' -l 'version' -d 'Show the version.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel resume" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel unlock" state-dir' -l 'state-dir' -d 'Keep the journal, results and lock here (also CARREL_STATE_DIR).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel unlock" shared' -l 'shared' -d 'The lab\'s shared store: a PostgreSQL URL (also CARREL_SHARED).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel unlock" room' -l 'room' -d 'The room this seat belongs to (also CARREL_ROOM).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel unlock" seat' -l 'seat' -d 'This seat\'s name in the room (default: host and terminal).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel unlock" version' -l 'version' -d 'Show the version.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel unlock" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel results" version' -l 'version' -d 'Show the version.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel results" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_positional "carrel results" -eq 1' -fa 'list' -d 'List sessions: candidate, assessment, status, score, started, duration.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_positional "carrel results" -eq 1' -fa 'show' -d 'Show one session\'s result and its integrity report.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_positional "carrel results" -eq 1' -fa 'export' -d 'Export results as JSON (the result documents) or CSV (one row per session, one column per item).'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_positional "carrel results" -eq 1' -fa 'mark' -d 'Record a person\'s mark for an essay (or override an item\'s score).'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel results list" assessment' -l 'assessment' -d 'Only this assessment id.' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel results list" since' -l 'since' -d 'Only sessions started on or after this date (2026-11-22, or a full ISO-8601 time).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel results list" status' -l 'status' -d 'Only this status: submitted, timed_out, ended_by_proctor, ended_by_candidate, seat_lost, interrupted, active, wrong_test, candidate_twice.' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel results list" json' -l 'json' -d 'Print JSON.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel results list" strict' -l 'strict' -d 'Exit 65 when a session could not be read.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel results list" state-dir' -l 'state-dir' -d 'Keep the journal, results and lock here (also CARREL_STATE_DIR).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel results list" shared' -l 'shared' -d 'The lab\'s shared store: a PostgreSQL URL (also CARREL_SHARED).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel results list" room' -l 'room' -d 'The room this seat belongs to (also CARREL_ROOM).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel results list" seat' -l 'seat' -d 'This seat\'s name in the room (default: host and terminal).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel results list" passphrase-stdin' -l 'passphrase-stdin' -d 'With --shared: read the proctor passphrase from standard input and check that each session\'s records and result were written by its seat (a "verified" column; each record that fails is named).'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel results list"' -l 'test' -d 'With the proctor\'s passphrase (--passphrase-stdin, or the console\'s): a sealed test (.carrel) whose sessions\' seats had no answer key; their responses are scored with it (repeat for several).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel results list" version' -l 'version' -d 'Show the version.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel results list" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel results show" json' -l 'json' -d 'Print JSON: the result and the integrity report.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel results show" strict' -l 'strict' -d 'Exit 65 when a session could not be read.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel results show" state-dir' -l 'state-dir' -d 'Keep the journal, results and lock here (also CARREL_STATE_DIR).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel results show" shared' -l 'shared' -d 'The lab\'s shared store: a PostgreSQL URL (also CARREL_SHARED).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel results show" room' -l 'room' -d 'The room this seat belongs to (also CARREL_ROOM).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel results show" seat' -l 'seat' -d 'This seat\'s name in the room (default: host and terminal).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel results show" passphrase-stdin' -l 'passphrase-stdin' -d 'With --shared: read the proctor passphrase from standard input and check that each session\'s records and result were written by its seat (a "verified" column; each record that fails is named).'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel results show"' -l 'test' -d 'With the proctor\'s passphrase (--passphrase-stdin, or the console\'s): a sealed test (.carrel) whose sessions\' seats had no answer key; their responses are scored with it (repeat for several).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel results show" version' -l 'version' -d 'Show the version.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel results show" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel results export" format' -l 'format' -d 'json or csv.' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel results export" out' -l 'out' -d 'Write here (0600, atomically) instead of standard output.' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel results export" assessment' -l 'assessment' -d 'Only this assessment id.' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel results export" since' -l 'since' -d 'Only sessions started on or after this date (2026-11-22, or a full ISO-8601 time).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel results export" status' -l 'status' -d 'Only this status: submitted, timed_out, ended_by_proctor, ended_by_candidate, seat_lost, interrupted, active, wrong_test, candidate_twice.' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel results export" strict' -l 'strict' -d 'Exit 65 when a session could not be read.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel results export" state-dir' -l 'state-dir' -d 'Keep the journal, results and lock here (also CARREL_STATE_DIR).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel results export" shared' -l 'shared' -d 'The lab\'s shared store: a PostgreSQL URL (also CARREL_SHARED).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel results export" room' -l 'room' -d 'The room this seat belongs to (also CARREL_ROOM).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel results export" seat' -l 'seat' -d 'This seat\'s name in the room (default: host and terminal).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel results export" passphrase-stdin' -l 'passphrase-stdin' -d 'With --shared: read the proctor passphrase from standard input and check that each session\'s records and result were written by its seat (a "verified" column; each record that fails is named).'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel results export"' -l 'test' -d 'With the proctor\'s passphrase (--passphrase-stdin, or the console\'s): a sealed test (.carrel) whose sessions\' seats had no answer key; their responses are scored with it (repeat for several).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel results export" version' -l 'version' -d 'Show the version.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel results export" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel results mark" comment' -l 'comment' -d 'A note kept with the mark, up to 500 characters.' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel results mark" state-dir' -l 'state-dir' -d 'Keep the journal, results and lock here (also CARREL_STATE_DIR).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel results mark" shared' -l 'shared' -d 'The lab\'s shared store: a PostgreSQL URL (also CARREL_SHARED).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel results mark" room' -l 'room' -d 'The room this seat belongs to (also CARREL_ROOM).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel results mark" seat' -l 'seat' -d 'This seat\'s name in the room (default: host and terminal).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel results mark" passphrase-stdin' -l 'passphrase-stdin' -d 'With --shared: read the proctor passphrase from standard input and check that each session\'s records and result were written by its seat (a "verified" column; each record that fails is named).'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel results mark"' -l 'test' -d 'With the proctor\'s passphrase (--passphrase-stdin, or the console\'s): a sealed test (.carrel) whose sessions\' seats had no answer key; their responses are scored with it (repeat for several).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel results mark" version' -l 'version' -d 'Show the version.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel results mark" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor" version' -l 'version' -d 'Show the version.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_positional "carrel proctor" -eq 1' -fa 'watch' -d 'A live console of every seat in a room (reads the lab\'s shared store).'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_positional "carrel proctor" -eq 1' -fa 'start' -d 'Start the waiting seats (all of the room, or those named).'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_positional "carrel proctor" -eq 1' -fa 'admit' -d 'Admit one held-back seat (unknown machine, other Carrel) after reading its seat key on its screen.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_positional "carrel proctor" -eq 1' -fa 'release' -d 'Let a candidate held after too many wrong codes try again.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_positional "carrel proctor" -eq 1' -fa 'pause' -d 'Pause seats: their clocks stop and answer keys wait.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_positional "carrel proctor" -eq 1' -fa 'resume' -d 'Resume paused seats: their clocks run again.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_positional "carrel proctor" -eq 1' -fa 'time' -d 'Add time to seats (within the session cap).'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_positional "carrel proctor" -eq 1' -fa 'message' -d 'Send one line to seats: shown in a box until the student presses a key, and spoken.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_positional "carrel proctor" -eq 1' -fa 'end' -d 'End seats\' sessions: answers kept and scored, ended by the proctor.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_positional "carrel proctor" -eq 1' -fa 'acknowledge' -d 'Answer raised hands: the seats show "The proctor is coming".'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor watch" shared' -l 'shared' -d 'The lab\'s shared store: a PostgreSQL URL (also CARREL_SHARED).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor watch" room' -l 'room' -d 'The room this seat belongs to (also CARREL_ROOM).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor watch" seat' -l 'seat' -d 'This seat\'s name in the room (default: host and terminal).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor watch" json' -l 'json' -d 'Print one snapshot of the seats as JSON and exit.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor watch" screen-reader' -l 'screen-reader' -d 'Keep the cursor on the focused seat; times in whole minutes, so the screen changes only when something happens.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor watch" theme' -l 'theme' -d 'default, mono (also chosen by a non-empty NO_COLOR) or contrast.' -rfka 'default mono contrast'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor watch" language' -l 'language' -d 'The language of the screens: en, fr, de, es or ja (else the roster\'s, the assessment\'s language key, LC_ALL/LC_MESSAGES/LANG, English).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor watch" passphrase-stdin' -l 'passphrase-stdin' -d 'With --json: read the proctor passphrase from standard input and check each seat\'s liveness with the room\'s key ("verified").'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor watch"' -l 'test' -d 'With the proctor\'s passphrase (--passphrase-stdin, or the console\'s): a sealed test (.carrel) whose sessions\' seats had no answer key; their responses are scored with it (repeat for several).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor watch" version' -l 'version' -d 'Show the version.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor watch" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor start" shared' -l 'shared' -d 'The lab\'s shared store: a PostgreSQL URL (also CARREL_SHARED).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor start" room' -l 'room' -d 'The room (also CARREL_ROOM).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor start"' -l 'seat' -d 'A seat to act on (repeat for several; none: the whole room).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor start" wait' -l 'wait' -d 'Seconds to wait for the seats to apply it.' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor start" yes' -l 'yes' -d 'Send the keys to the seats listed without asking (start only; check the list first).'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor start" passphrase-stdin' -l 'passphrase-stdin' -d 'Read the proctor passphrase, which signs the command, from the first line of standard input (asked without echo at a terminal otherwise).'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor start" version' -l 'version' -d 'Show the version.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor start" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor admit" shared' -l 'shared' -d 'The lab\'s shared store: a PostgreSQL URL (also CARREL_SHARED).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor admit" room' -l 'room' -d 'The room (also CARREL_ROOM).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor admit" seat' -l 'seat' -d 'The seat to admit.' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor admit" seat-key' -l 'seat-key' -d 'The seat key its screen shows (3f2a-91c0-77de-0b14).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor admit" version' -l 'version' -d 'Show the version.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor admit" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor release" shared' -l 'shared' -d 'The lab\'s shared store: a PostgreSQL URL (also CARREL_SHARED).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor release" room' -l 'room' -d 'The room (also CARREL_ROOM).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor release" candidate' -l 'candidate' -d 'The candidate number held.' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor release" version' -l 'version' -d 'Show the version.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor release" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor pause" shared' -l 'shared' -d 'The lab\'s shared store: a PostgreSQL URL (also CARREL_SHARED).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor pause" room' -l 'room' -d 'The room (also CARREL_ROOM).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor pause"' -l 'seat' -d 'A seat to act on (repeat for several; none: the whole room).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor pause" wait' -l 'wait' -d 'Seconds to wait for the seats to apply it.' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor pause" yes' -l 'yes' -d 'Send the keys to the seats listed without asking (start only; check the list first).'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor pause" passphrase-stdin' -l 'passphrase-stdin' -d 'Read the proctor passphrase, which signs the command, from the first line of standard input (asked without echo at a terminal otherwise).'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor pause" version' -l 'version' -d 'Show the version.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor pause" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor resume" shared' -l 'shared' -d 'The lab\'s shared store: a PostgreSQL URL (also CARREL_SHARED).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor resume" room' -l 'room' -d 'The room (also CARREL_ROOM).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor resume"' -l 'seat' -d 'A seat to act on (repeat for several; none: the whole room).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor resume" wait' -l 'wait' -d 'Seconds to wait for the seats to apply it.' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor resume" yes' -l 'yes' -d 'Send the keys to the seats listed without asking (start only; check the list first).'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor resume" passphrase-stdin' -l 'passphrase-stdin' -d 'Read the proctor passphrase, which signs the command, from the first line of standard input (asked without echo at a terminal otherwise).'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor resume" version' -l 'version' -d 'Show the version.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor resume" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor time" shared' -l 'shared' -d 'The lab\'s shared store: a PostgreSQL URL (also CARREL_SHARED).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor time" room' -l 'room' -d 'The room (also CARREL_ROOM).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor time"' -l 'seat' -d 'A seat to act on (repeat for several; none: the whole room).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor time" wait' -l 'wait' -d 'Seconds to wait for the seats to apply it.' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor time" yes' -l 'yes' -d 'Send the keys to the seats listed without asking (start only; check the list first).'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor time" passphrase-stdin' -l 'passphrase-stdin' -d 'Read the proctor passphrase, which signs the command, from the first line of standard input (asked without echo at a terminal otherwise).'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor time" version' -l 'version' -d 'Show the version.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor time" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor message" shared' -l 'shared' -d 'The lab\'s shared store: a PostgreSQL URL (also CARREL_SHARED).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor message" room' -l 'room' -d 'The room (also CARREL_ROOM).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor message"' -l 'seat' -d 'A seat to act on (repeat for several; none: the whole room).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor message" wait' -l 'wait' -d 'Seconds to wait for the seats to apply it.' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor message" yes' -l 'yes' -d 'Send the keys to the seats listed without asking (start only; check the list first).'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor message" passphrase-stdin' -l 'passphrase-stdin' -d 'Read the proctor passphrase, which signs the command, from the first line of standard input (asked without echo at a terminal otherwise).'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor message" version' -l 'version' -d 'Show the version.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor message" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor end" shared' -l 'shared' -d 'The lab\'s shared store: a PostgreSQL URL (also CARREL_SHARED).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor end" room' -l 'room' -d 'The room (also CARREL_ROOM).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor end"' -l 'seat' -d 'A seat to act on (repeat for several; none: the whole room).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor end" wait' -l 'wait' -d 'Seconds to wait for the seats to apply it.' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor end" yes' -l 'yes' -d 'Send the keys to the seats listed without asking (start only; check the list first).'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor end" passphrase-stdin' -l 'passphrase-stdin' -d 'Read the proctor passphrase, which signs the command, from the first line of standard input (asked without echo at a terminal otherwise).'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor end" version' -l 'version' -d 'Show the version.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor end" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor acknowledge" shared' -l 'shared' -d 'The lab\'s shared store: a PostgreSQL URL (also CARREL_SHARED).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor acknowledge" room' -l 'room' -d 'The room (also CARREL_ROOM).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor acknowledge"' -l 'seat' -d 'A seat to act on (repeat for several; none: the whole room).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor acknowledge" wait' -l 'wait' -d 'Seconds to wait for the seats to apply it.' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor acknowledge" yes' -l 'yes' -d 'Send the keys to the seats listed without asking (start only; check the list first).'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor acknowledge" passphrase-stdin' -l 'passphrase-stdin' -d 'Read the proctor passphrase, which signs the command, from the first line of standard input (asked without echo at a terminal otherwise).'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor acknowledge" version' -l 'version' -d 'Show the version.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel proctor acknowledge" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel room" version' -l 'version' -d 'Show the version.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel room" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_positional "carrel room" -eq 1' -fa 'open' -d 'Open a room for a test: its plan, roster and way of starting.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_positional "carrel room" -eq 1' -fa 'show' -d 'Show a room\'s plan.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_positional "carrel room" -eq 1' -fa 'close' -d 'Close a room: no seat can begin in it any more.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel room open" roster' -l 'roster' -d 'The room\'s roster (CSV with a header).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel room open" start' -l 'start' -d 'Who starts the seats: proctor (seats wait) or candidate.' -rfka 'proctor candidate'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel room open" shared' -l 'shared' -d 'The lab\'s shared store: a PostgreSQL URL (also CARREL_SHARED).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel room open" machines' -l 'machines' -d 'The machines whose waiting seats a start sends keys to without a look: all, NAME,NAME or any.' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel room open" lab' -l 'lab' -d 'With --machines all: only the machines enrolled in this lab.' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel room open" version' -l 'version' -d 'Show the version.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel room open" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel room show" shared' -l 'shared' -d 'The lab\'s shared store: a PostgreSQL URL (also CARREL_SHARED).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel room show" json' -l 'json' -d 'Print the plan as JSON.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel room show" version' -l 'version' -d 'Show the version.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel room show" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel room close" shared' -l 'shared' -d 'The lab\'s shared store: a PostgreSQL URL (also CARREL_SHARED).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel room close" version' -l 'version' -d 'Show the version.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel room close" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel store" version' -l 'version' -d 'Show the version.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel store" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_positional "carrel store" -eq 1' -fa 'init' -d 'Create or update the schema, the seat and proctor roles and their grants.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel store init" shared' -l 'shared' -d 'The lab\'s shared store: a PostgreSQL URL (also CARREL_SHARED).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel store init" seat-role' -l 'seat-role' -d 'The seats\' role.' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel store init" proctor-role' -l 'proctor-role' -d 'The proctors\' role.' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel store init" proctor-reserve' -l 'proctor-reserve' -d 'Connections kept free of seats for proctors.' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel store init" shared-seat-connections' -l 'shared-seat-connections' -d 'Connections of the shared seat role: what unenrolled seats (a spare admitted by hand) and practice sessions share; 20 takes a few of each at once. Its password is known to students, who may hold all of them, so keep it small: enrolled machines log in as their own roles and do not use it.' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel store init" version' -l 'version' -d 'Show the version.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel store init" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel keys" markdown' -l 'markdown' -d 'Print the list as a Markdown table (the README\'s).'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel keys" all' -l 'all' -d 'List every screen\'s keys, each under its title.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel keys" screen' -l 'screen' -d 'List one screen\'s keys.' -rfka 'start begin question help review skip submit end proctor receipt demo demo-quit console console-empty console-report'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel keys" version' -l 'version' -d 'Show the version.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel keys" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel seat" version' -l 'version' -d 'Show the version.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel seat" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_positional "carrel seat" -eq 1' -fa 'enroll' -d 'Enrol this machine (as root): its machine key, the signing helper, and the key\'s public half in the store.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_positional "carrel seat" -eq 1' -fa 'check' -d 'Check that this machine is enrolled and that its helper signs for this Carrel.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel seat enroll" shared' -l 'shared' -d 'The lab\'s shared store: a PostgreSQL URL (also CARREL_SHARED).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel seat enroll" lab' -l 'lab' -d 'The lab this machine belongs to (rooms may take all of a lab\'s machines).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel seat enroll" machine' -l 'machine' -d 'This machine\'s name in the store (default: its host name).' -rfka ''
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel seat enroll" version' -l 'version' -d 'Show the version.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel seat enroll" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel seat check" version' -l 'version' -d 'Show the version.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel seat check" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'carrel' -n '__carrel_should_offer_completions_for_flags_or_options "carrel help" version' -l 'version' -d 'Show the version.'

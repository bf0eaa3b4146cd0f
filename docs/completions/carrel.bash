#!/bin/bash

__carrel_cursor_index_in_current_word() {
    local remaining="${COMP_LINE}"

    local word
    for word in "${COMP_WORDS[@]::COMP_CWORD}"; do
        remaining="${remaining##*([[:space:]])"${word}"*([[:space:]])}"
    done

    local -ir index="$((COMP_POINT - ${#COMP_LINE} + ${#remaining}))"
    if [[ "${index}" -le 0 ]]; then
        printf 0
    else
        printf %s "${index}"
    fi
}

# positional arguments:
#
# - 1: the current (sub)command's count of positional arguments
#
# required variables:
#
# - repeating_flags: the repeating flags that the current (sub)command can accept
# - non_repeating_flags: the non-repeating flags that the current (sub)command can accept
# - repeating_options: the repeating options that the current (sub)command can accept
# - non_repeating_options: the non-repeating options that the current (sub)command can accept
# - positional_number: value ignored
# - unparsed_words: unparsed words from the current command line
#
# modified variables:
#
# - non_repeating_flags: remove flags for this (sub)command that are already on the command line
# - non_repeating_options: remove options for this (sub)command that are already on the command line
# - positional_number: set to the current positional number
# - unparsed_words: remove all flags, options, and option values for this (sub)command
__carrel_offer_flags_options() {
    local -ir positional_count="${1}"
    positional_number=0

    local was_flag_option_terminator_seen=false
    local is_parsing_option_value=false

    local -ar unparsed_word_indices=("${!unparsed_words[@]}")
    local -i word_index
    for word_index in "${unparsed_word_indices[@]}"; do
        if "${is_parsing_option_value}"; then
            # This word is an option value:
            # Reset marker for next word iff not currently the last word
            [[ "${word_index}" -ne "${unparsed_word_indices[${#unparsed_word_indices[@]} - 1]}" ]] && is_parsing_option_value=false
            unset "unparsed_words[${word_index}]"
            # Do not process this word as a flag or an option
            continue
        fi

        local word="${unparsed_words["${word_index}"]}"
        if ! "${was_flag_option_terminator_seen}"; then
            case "${word}" in
            --)
                unset "unparsed_words[${word_index}]"
                # by itself -- is a flag/option terminator, but if it is the last word, it is the start of a completion
                if [[ "${word_index}" -ne "${unparsed_word_indices[${#unparsed_word_indices[@]} - 1]}" ]]; then
                    was_flag_option_terminator_seen=true
                fi
                continue
                ;;
            -*)
                # ${word} is a flag or an option
                # If ${word} is an option, mark that the next word to be parsed is an option value
                local option
                for option in "${repeating_options[@]}" "${non_repeating_options[@]}"; do
                    [[ "${word}" = "${option}" ]] && is_parsing_option_value=true && break
                done

                # Remove ${word} from ${non_repeating_flags} or ${non_repeating_options} so it isn't offered again
                local not_found=true
                local -i index
                for index in "${!non_repeating_flags[@]}"; do
                    if [[ "${non_repeating_flags[${index}]}" = "${word}" ]]; then
                        unset "non_repeating_flags[${index}]"
                        non_repeating_flags=("${non_repeating_flags[@]}")
                        not_found=false
                        break
                    fi
                done
                if "${not_found}"; then
                    for index in "${!non_repeating_flags[@]}"; do
                        if [[ "${non_repeating_flags[${index}]}" = "${word}" ]]; then
                            unset "non_repeating_flags[${index}]"
                            non_repeating_flags=("${non_repeating_flags[@]}")
                            break
                        fi
                    done
                fi
                unset "unparsed_words[${word_index}]"
                continue
                ;;
            esac
        fi

        # ${word} is neither a flag, nor an option, nor an option value
        if [[ "${positional_number}" -lt "${positional_count}" || "${positional_count}" -lt 0 ]]; then
            # ${word} is a positional
            ((positional_number++))
            unset "unparsed_words[${word_index}]"
        else
            if [[ -z "${word}" ]]; then
                # Could be completing a flag, option, or subcommand
                positional_number=-1
            else
                # ${word} is a subcommand or invalid, so stop processing this (sub)command
                positional_number=-2
            fi
            break
        fi
    done

    unparsed_words=("${unparsed_words[@]}")

    if\
        ! "${was_flag_option_terminator_seen}"\
        && ! "${is_parsing_option_value}"\
        && [[ ("${cur}" = -* && "${positional_number}" -ge 0) || "${positional_number}" -eq -1 ]]
    then
        COMPREPLY+=($(compgen -W "${repeating_flags[*]} ${non_repeating_flags[*]} ${repeating_options[*]} ${non_repeating_options[*]}" -- "${cur}"))
    fi
}

__carrel_add_completions() {
    local completion
    while IFS='' read -r completion; do
        COMPREPLY+=("${completion}")
    done < <(IFS=$'\n' compgen "${@}" -- "${cur}")
}

__carrel_custom_complete() {
    if [[ -n "${cur}" || -z ${COMP_WORDS[${COMP_CWORD}]} || "${COMP_LINE:${COMP_POINT}:1}" != ' ' ]]; then
        local -ar words=("${COMP_WORDS[@]}")
    else
        local -ar words=("${COMP_WORDS[@]::${COMP_CWORD}}" '' "${COMP_WORDS[@]:${COMP_CWORD}}")
    fi

    "${COMP_WORDS[0]}" "${@}" "${words[@]}"
}

_carrel() {
    local state
    state="$(shopt -p;shopt -po)"
    trap "${state//$'\n'/;}" RETURN
    shopt -s extglob
    set +o history +o posix

    local -xr SAP_SHELL=bash
    local -x SAP_SHELL_VERSION
    SAP_SHELL_VERSION="$(IFS='.';printf %s "${BASH_VERSINFO[*]}")"
    local -r SAP_SHELL_VERSION

    local -r cur="${2}"
    local -r prev="${3}"

    local -i positional_number
    local -a unparsed_words=("${COMP_WORDS[@]:1:${COMP_CWORD}}")

    local -a repeating_flags=()
    local -a non_repeating_flags=(--version -h --help)
    local -a repeating_options=()
    local -a non_repeating_options=()
    __carrel_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    take|demo|validate|inspect|import|passphrase|seal|status|resume|unlock|results|proctor|room|store|keys|seat|help)
        # Offer subcommand argument completions
        "_carrel_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'take demo validate inspect import passphrase seal status resume unlock results proctor room store keys seat help' -- "${cur}"))
        ;;
    esac
}

_carrel_take() {
    repeating_flags=()
    non_repeating_flags=(--screen-reader --version -h --help)
    repeating_options=()
    non_repeating_options=(--candidate --extra-time --theme --language --state-dir --shared --room --seat)
    __carrel_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--candidate')
        return
        ;;
    '--extra-time')
        __carrel_add_completions -W '1.5'$'\n''+15m'$'\n''unlimited'
        return
        ;;
    '--theme')
        __carrel_add_completions -W 'default'$'\n''mono'$'\n''contrast'
        return
        ;;
    '--language')
        return
        ;;
    '--state-dir')
        return
        ;;
    '--shared')
        return
        ;;
    '--room')
        return
        ;;
    '--seat')
        return
        ;;
    esac
}

_carrel_demo() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--workshop --theme --language --catalog --screens --size --state-dir --shared --room --seat)
    __carrel_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--workshop')
        return
        ;;
    '--theme')
        return
        ;;
    '--language')
        return
        ;;
    '--catalog')
        return
        ;;
    '--screens')
        return
        ;;
    '--size')
        return
        ;;
    '--state-dir')
        return
        ;;
    '--shared')
        return
        ;;
    '--room')
        return
        ;;
    '--seat')
        return
        ;;
    esac
}

_carrel_validate() {
    repeating_flags=()
    non_repeating_flags=(--passphrase-stdin --version -h --help)
    repeating_options=()
    non_repeating_options=()
    __carrel_offer_flags_options -1
}

_carrel_inspect() {
    repeating_flags=()
    non_repeating_flags=(--json --passphrase-stdin --version -h --help)
    repeating_options=()
    non_repeating_options=()
    __carrel_offer_flags_options 1
}

_carrel_import() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--format --out --id --title --time-limit)
    __carrel_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--format')
        __carrel_add_completions -W 'moodle'$'\n''gift'$'\n''aiken'$'\n''cloze'$'\n''qti'
        return
        ;;
    '--out')
        return
        ;;
    '--id')
        return
        ;;
    '--title')
        return
        ;;
    '--time-limit')
        __carrel_add_completions -W '10m'$'\n''45m'$'\n''1h'$'\n''1h30m'
        return
        ;;
    esac
}

_carrel_passphrase() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __carrel_offer_flags_options 0
}

_carrel_seal() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--out)
    __carrel_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--out')
        return
        ;;
    esac
}

_carrel_status() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--state-dir)
    __carrel_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--state-dir')
        return
        ;;
    esac
}

_carrel_resume() {
    repeating_flags=()
    non_repeating_flags=(--screen-reader --version -h --help)
    repeating_options=()
    non_repeating_options=(--theme --language --state-dir --shared --room --seat)
    __carrel_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--theme')
        __carrel_add_completions -W 'default'$'\n''mono'$'\n''contrast'
        return
        ;;
    '--language')
        return
        ;;
    '--state-dir')
        return
        ;;
    '--shared')
        return
        ;;
    '--room')
        return
        ;;
    '--seat')
        return
        ;;
    esac
}

_carrel_unlock() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--state-dir --shared --room --seat)
    __carrel_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--state-dir')
        return
        ;;
    '--shared')
        return
        ;;
    '--room')
        return
        ;;
    '--seat')
        return
        ;;
    esac
}

_carrel_results() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __carrel_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    list|show|export|mark)
        # Offer subcommand argument completions
        "_carrel_results_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'list show export mark' -- "${cur}"))
        ;;
    esac
}

_carrel_results_list() {
    repeating_flags=()
    non_repeating_flags=(--json --strict --passphrase-stdin --version -h --help)
    repeating_options=(--test)
    non_repeating_options=(--assessment --since --status --state-dir --shared --room --seat)
    __carrel_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--assessment')
        return
        ;;
    '--since')
        return
        ;;
    '--status')
        return
        ;;
    '--state-dir')
        return
        ;;
    '--shared')
        return
        ;;
    '--room')
        return
        ;;
    '--seat')
        return
        ;;
    '--test')
        return
        ;;
    esac
}

_carrel_results_show() {
    repeating_flags=()
    non_repeating_flags=(--json --strict --passphrase-stdin --version -h --help)
    repeating_options=(--test)
    non_repeating_options=(--state-dir --shared --room --seat)
    __carrel_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--state-dir')
        return
        ;;
    '--shared')
        return
        ;;
    '--room')
        return
        ;;
    '--seat')
        return
        ;;
    '--test')
        return
        ;;
    esac
}

_carrel_results_export() {
    repeating_flags=()
    non_repeating_flags=(--strict --passphrase-stdin --version -h --help)
    repeating_options=(--test)
    non_repeating_options=(--format --out --assessment --since --status --state-dir --shared --room --seat)
    __carrel_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--format')
        return
        ;;
    '--out')
        return
        ;;
    '--assessment')
        return
        ;;
    '--since')
        return
        ;;
    '--status')
        return
        ;;
    '--state-dir')
        return
        ;;
    '--shared')
        return
        ;;
    '--room')
        return
        ;;
    '--seat')
        return
        ;;
    '--test')
        return
        ;;
    esac
}

_carrel_results_mark() {
    repeating_flags=()
    non_repeating_flags=(--passphrase-stdin --version -h --help)
    repeating_options=(--test)
    non_repeating_options=(--comment --state-dir --shared --room --seat)
    __carrel_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--comment')
        return
        ;;
    '--state-dir')
        return
        ;;
    '--shared')
        return
        ;;
    '--room')
        return
        ;;
    '--seat')
        return
        ;;
    '--test')
        return
        ;;
    esac
}

_carrel_proctor() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __carrel_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    watch|start|move|lost|admit|release|pause|resume|time|message|end|acknowledge)
        # Offer subcommand argument completions
        "_carrel_proctor_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'watch start move lost admit release pause resume time message end acknowledge' -- "${cur}"))
        ;;
    esac
}

_carrel_proctor_watch() {
    repeating_flags=()
    non_repeating_flags=(--json --screen-reader --passphrase-stdin --version -h --help)
    repeating_options=(--test)
    non_repeating_options=(--shared --room --seat --theme --language)
    __carrel_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--shared')
        return
        ;;
    '--room')
        return
        ;;
    '--seat')
        return
        ;;
    '--theme')
        __carrel_add_completions -W 'default'$'\n''mono'$'\n''contrast'
        return
        ;;
    '--language')
        return
        ;;
    '--test')
        return
        ;;
    esac
}

_carrel_proctor_start() {
    repeating_flags=()
    non_repeating_flags=(--yes --passphrase-stdin --version -h --help)
    repeating_options=(--seat)
    non_repeating_options=(--shared --room --wait)
    __carrel_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--shared')
        return
        ;;
    '--room')
        return
        ;;
    '--seat')
        return
        ;;
    '--wait')
        return
        ;;
    esac
}

_carrel_proctor_move() {
    repeating_flags=()
    non_repeating_flags=(--while-connected --yes --passphrase-stdin --version -h --help)
    repeating_options=()
    non_repeating_options=(--shared --room --from --to --wait --seat-key)
    __carrel_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--shared')
        return
        ;;
    '--room')
        return
        ;;
    '--from')
        return
        ;;
    '--to')
        return
        ;;
    '--wait')
        return
        ;;
    '--seat-key')
        return
        ;;
    esac
}

_carrel_proctor_lost() {
    repeating_flags=()
    non_repeating_flags=(--yes --passphrase-stdin --version -h --help)
    repeating_options=()
    non_repeating_options=(--shared --room --seat --test)
    __carrel_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--shared')
        return
        ;;
    '--room')
        return
        ;;
    '--seat')
        return
        ;;
    '--test')
        return
        ;;
    esac
}

_carrel_proctor_admit() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--shared --room --seat --seat-key)
    __carrel_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--shared')
        return
        ;;
    '--room')
        return
        ;;
    '--seat')
        return
        ;;
    '--seat-key')
        return
        ;;
    esac
}

_carrel_proctor_release() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--shared --room --candidate)
    __carrel_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--shared')
        return
        ;;
    '--room')
        return
        ;;
    '--candidate')
        return
        ;;
    esac
}

_carrel_proctor_pause() {
    repeating_flags=()
    non_repeating_flags=(--yes --passphrase-stdin --version -h --help)
    repeating_options=(--seat)
    non_repeating_options=(--shared --room --wait)
    __carrel_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--shared')
        return
        ;;
    '--room')
        return
        ;;
    '--seat')
        return
        ;;
    '--wait')
        return
        ;;
    esac
}

_carrel_proctor_resume() {
    repeating_flags=()
    non_repeating_flags=(--yes --passphrase-stdin --version -h --help)
    repeating_options=(--seat)
    non_repeating_options=(--shared --room --wait)
    __carrel_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--shared')
        return
        ;;
    '--room')
        return
        ;;
    '--seat')
        return
        ;;
    '--wait')
        return
        ;;
    esac
}

_carrel_proctor_time() {
    repeating_flags=()
    non_repeating_flags=(--yes --passphrase-stdin --version -h --help)
    repeating_options=(--seat)
    non_repeating_options=(--shared --room --wait)
    __carrel_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--shared')
        return
        ;;
    '--room')
        return
        ;;
    '--seat')
        return
        ;;
    '--wait')
        return
        ;;
    esac
}

_carrel_proctor_message() {
    repeating_flags=()
    non_repeating_flags=(--yes --passphrase-stdin --version -h --help)
    repeating_options=(--seat)
    non_repeating_options=(--shared --room --wait)
    __carrel_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--shared')
        return
        ;;
    '--room')
        return
        ;;
    '--seat')
        return
        ;;
    '--wait')
        return
        ;;
    esac
}

_carrel_proctor_end() {
    repeating_flags=()
    non_repeating_flags=(--yes --passphrase-stdin --version -h --help)
    repeating_options=(--seat)
    non_repeating_options=(--shared --room --wait)
    __carrel_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--shared')
        return
        ;;
    '--room')
        return
        ;;
    '--seat')
        return
        ;;
    '--wait')
        return
        ;;
    esac
}

_carrel_proctor_acknowledge() {
    repeating_flags=()
    non_repeating_flags=(--yes --passphrase-stdin --version -h --help)
    repeating_options=(--seat)
    non_repeating_options=(--shared --room --wait)
    __carrel_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--shared')
        return
        ;;
    '--room')
        return
        ;;
    '--seat')
        return
        ;;
    '--wait')
        return
        ;;
    esac
}

_carrel_room() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __carrel_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    open|show|close)
        # Offer subcommand argument completions
        "_carrel_room_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'open show close' -- "${cur}"))
        ;;
    esac
}

_carrel_room_open() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--roster --start --shared --machines --lab)
    __carrel_offer_flags_options 2

    # Offer option value completions
    case "${prev}" in
    '--roster')
        return
        ;;
    '--start')
        __carrel_add_completions -W 'proctor'$'\n''candidate'
        return
        ;;
    '--shared')
        return
        ;;
    '--machines')
        return
        ;;
    '--lab')
        return
        ;;
    esac
}

_carrel_room_show() {
    repeating_flags=()
    non_repeating_flags=(--json --version -h --help)
    repeating_options=()
    non_repeating_options=(--shared)
    __carrel_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--shared')
        return
        ;;
    esac
}

_carrel_room_close() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--shared)
    __carrel_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--shared')
        return
        ;;
    esac
}

_carrel_store() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __carrel_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    init)
        # Offer subcommand argument completions
        "_carrel_store_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'init' -- "${cur}"))
        ;;
    esac
}

_carrel_store_init() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--shared --seat-role --proctor-role --proctor-reserve --shared-seat-connections)
    __carrel_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--shared')
        return
        ;;
    '--seat-role')
        return
        ;;
    '--proctor-role')
        return
        ;;
    '--proctor-reserve')
        return
        ;;
    '--shared-seat-connections')
        return
        ;;
    esac
}

_carrel_keys() {
    repeating_flags=()
    non_repeating_flags=(--markdown --all --version -h --help)
    repeating_options=()
    non_repeating_options=(--screen)
    __carrel_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--screen')
        __carrel_add_completions -W 'start'$'\n''begin'$'\n''question'$'\n''help'$'\n''review'$'\n''skip'$'\n''submit'$'\n''end'$'\n''proctor'$'\n''receipt'$'\n''demo'$'\n''demo-quit'$'\n''console'$'\n''console-empty'$'\n''console-report'
        return
        ;;
    esac
}

_carrel_seat() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __carrel_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    enroll|check)
        # Offer subcommand argument completions
        "_carrel_seat_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'enroll check' -- "${cur}"))
        ;;
    esac
}

_carrel_seat_enroll() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--shared --lab --machine)
    __carrel_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--shared')
        return
        ;;
    '--lab')
        return
        ;;
    '--machine')
        return
        ;;
    esac
}

_carrel_seat_check() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __carrel_offer_flags_options 0
}

_carrel_help() {
    repeating_flags=()
    non_repeating_flags=(--version)
    repeating_options=()
    non_repeating_options=()
    __carrel_offer_flags_options -1
}

complete -o filenames -F _carrel carrel

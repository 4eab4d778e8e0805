# Sourced by Tests/Loops/run-loop-tests.sh (issue 27): builds Tests/Loops/actor_uv.c with its
# Swift component (actor_uv.swift, compiled with swiftc against the same libvow.so, as
# Examples/run-examples.sh builds its Swift components) and runs it in each pass, with the
# script's ok/fail lines. Uses the script's $root, $here, $out, $bin, $cc_flags, $passes.

run_actor_uv_test() {
    local name=actor_uv log swift_log
    if [[ -n "${LOOP_TESTS:-}" ]] && [[ " $LOOP_TESTS " != *" $name "* ]]; then return 0; fi
    swift_log="$out/$name.swift.log"
    if ! vow_swiftc_flags "$bin" "$root" >"$swift_log" 2>&1 \
        || ! swiftc -emit-library -module-name VowActorUV "${VOW_SWIFTC_FLAGS[@]}" \
            "$here/actor_uv.swift" -o "$out/libvowactoruv.so" >>"$swift_log" 2>&1; then
        fail "$name (the Swift component does not build: $swift_log)"
        sed 's/^/    /' "$swift_log" | head -20
        return 0
    fi
    local uv_flags
    read -r -a uv_flags <<<"$(pkg-config --cflags --libs "$(vow_bridge_pkg uv)")"
    if ! cc "${cc_flags[@]}" -o "$out/$name" "$here/$name.c" "$out/libvow-uv.a" "${uv_flags[@]}" \
            -L "$out" -lvowactoruv "-Wl,-rpath,$out" -L "$bin" -lvow "-Wl,-rpath,$bin" -lpthread -lm \
            >"$out/$name.build.log" 2>&1; then
        fail "$name (does not build: $out/$name.build.log)"
        sed 's/^/    /' "$out/$name.build.log" | head -20
        return 0
    fi
    local pass run_prefix timeout_s rc checks fails result
    for pass in "${passes[@]}"; do
        run_prefix=()
        timeout_s=60
        log="$out/$name.$pass.log"
        if [[ "$pass" == valgrind ]]; then
            run_prefix=(valgrind --error-exitcode=99 --errors-for-leak-kinds=definite,indirect --leak-check=full
                        --fair-sched=yes -q)
            [[ -f "$here/valgrind.supp" ]] && run_prefix+=("--suppressions=$here/valgrind.supp")
            timeout_s=600
            VOW_TEST_WAIT=60 VOW_TEST_WATCHDOG=550 \
                timeout --kill-after=10 "$timeout_s" "${run_prefix[@]}" "$out/$name" >"$log" 2>&1
        else
            timeout --kill-after=10 "$timeout_s" "$out/$name" >"$log" 2>&1
        fi
        rc=$?
        result="$(grep -o 'RESULT checks=[0-9]* failures=[0-9]*' "$log" | tail -1)"
        checks="$(sed -n 's/.*checks=\([0-9]*\).*/\1/p' <<<"$result")"
        fails="$(sed -n 's/.*failures=\([0-9]*\).*/\1/p' <<<"$result")"
        if [[ "$rc" -eq 0 && -n "$result" && "$fails" == "0" ]]; then
            ok "$name [$pass] (an actor on the libuv bridge; $checks checks)"
        else
            fail "$name [$pass] (exit $rc; ${fails:-?} of ${checks:-?} checks failed; log: $log)"
            grep -E 'CHECK failed|FAIL |watchdog|definitely|indirectly|Invalid|Precondition|Fatal' "$log" \
                | head -20 | sed 's/^/    /'
        fi
    done
}

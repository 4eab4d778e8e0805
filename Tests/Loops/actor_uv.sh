# Sourced by Tests/Loops/run-loop-tests.sh (issue 27): builds Tests/Loops/actor_uv.c with its
# Swift component (actor_uv.swift, compiled with swiftc against the same libvow.so, as
# Examples/run-examples.sh builds its Swift components) and runs it in each pass of
# scripts/lib/vow-matrix.sh, with the script's ok/fail lines. Uses the script's $root, $here,
# $out, $bin, $cc_flags, $passes.

run_actor_uv_test() {
    local name=actor_uv swift_log="$out/actor_uv.swift.log" pass dir uv_flags
    if [[ -n "${LOOP_TESTS:-}" ]] && [[ " $LOOP_TESTS " != *" $name "* ]]; then return 0; fi
    if ! vow_matrix_swift_library "$bin" "$root" "$swift_log" VowActorUV "$out/libvowactoruv.so" \
            "$here/actor_uv.swift"; then
        fail "$name (the Swift component does not build: $swift_log)"
        sed 's/^/    /' "$swift_log" | head -20
        return 0
    fi
    read -r -a uv_flags <<<"$(pkg-config --cflags --libs "$(vow_bridge_pkg uv)")"
    for pass in "${passes[@]}"; do
        vow_matrix_mode "$root" "$pass" 60 "--suppressions=$here/loop-tests-valgrind.supp" 2>/dev/null || continue
        dir="$out"
        [[ "$pass" == asan ]] && dir="$out/asan"
        # The ASan build compiles the bridge into the program, as build_programs does.
        local bridge_code=("$out/libvow-uv.a")
        [[ "$pass" == asan ]] && mapfile -t bridge_code < <(vow_bridge_sources "$root" uv)
        if ! vow_matrix_compile "$dir/$name" "$dir/$name.build.log" cc "${cc_flags[@]}" "$here/$name.c" \
                "${bridge_code[@]}" "${uv_flags[@]}" -L "$out" -lvowactoruv "-Wl,-rpath,$out" \
                -L "$bin" -lvow "-Wl,-rpath,$bin" -lpthread -lm; then
            fail "$name [$pass] (does not build: $dir/$name.build.log)"
            sed 's/^/    /' "$dir/$name.build.log" | head -20
            continue
        fi
        vow_matrix_run "$out/$name.$pass.log" "$dir/$name"
        if vow_matrix_judge "$name [$pass] (an actor on the libuv bridge)" "$out/$name.$pass.log" 'Precondition'; then
            passed=$((passed + 1))
        else
            failed=$((failed + 1))
        fi
    done
}

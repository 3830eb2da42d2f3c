// The functions of Z3's C API that the binding calls, with their
// prototypes as Z3's documentation gives them; the types are declared in
// z3api.h (or, for the declaration test, by Z3's own z3.h).
#ifndef FAULTLINE_Z3_FUNCS_H
#define FAULTLINE_Z3_FUNCS_H

// FAULTLINE_Z3_FUNCTIONS lists every function the binding calls:
// F(result type, name, parameter list, argument list) for functions with a
// result, V(name, parameter list, argument list) for those without.
#define FAULTLINE_Z3_FUNCTIONS(F, V) \
	/* version, configuration, contexts and errors */ \
	V(Z3_get_version, (unsigned *major, unsigned *minor, unsigned *build, unsigned *revision), (major, minor, build, revision)) \
	F(uint64_t, Z3_get_estimated_alloc_size, (void), ()) \
	F(Z3_config, Z3_mk_config, (void), ()) \
	V(Z3_del_config, (Z3_config cfg), (cfg)) \
	V(Z3_set_param_value, (Z3_config cfg, Z3_string name, Z3_string value), (cfg, name, value)) \
	F(Z3_context, Z3_mk_context_rc, (Z3_config cfg), (cfg)) \
	V(Z3_del_context, (Z3_context c), (c)) \
	V(Z3_interrupt, (Z3_context c), (c)) \
	V(Z3_set_error_handler, (Z3_context c, Z3_error_handler *h), (c, h)) \
	F(Z3_error_code, Z3_get_error_code, (Z3_context c), (c)) \
	F(Z3_string, Z3_get_error_msg, (Z3_context c, Z3_error_code e), (c, e)) \
	/* reference counts */ \
	V(Z3_inc_ref, (Z3_context c, Z3_ast a), (c, a)) \
	V(Z3_dec_ref, (Z3_context c, Z3_ast a), (c, a)) \
	V(Z3_solver_inc_ref, (Z3_context c, Z3_solver s), (c, s)) \
	V(Z3_solver_dec_ref, (Z3_context c, Z3_solver s), (c, s)) \
	V(Z3_optimize_inc_ref, (Z3_context c, Z3_optimize o), (c, o)) \
	V(Z3_optimize_dec_ref, (Z3_context c, Z3_optimize o), (c, o)) \
	V(Z3_model_inc_ref, (Z3_context c, Z3_model m), (c, m)) \
	V(Z3_model_dec_ref, (Z3_context c, Z3_model m), (c, m)) \
	V(Z3_params_inc_ref, (Z3_context c, Z3_params p), (c, p)) \
	V(Z3_params_dec_ref, (Z3_context c, Z3_params p), (c, p)) \
	V(Z3_ast_vector_inc_ref, (Z3_context c, Z3_ast_vector v), (c, v)) \
	V(Z3_ast_vector_dec_ref, (Z3_context c, Z3_ast_vector v), (c, v)) \
	/* symbols and parameter sets */ \
	F(Z3_symbol, Z3_mk_string_symbol, (Z3_context c, Z3_string s), (c, s)) \
	F(Z3_params, Z3_mk_params, (Z3_context c), (c)) \
	V(Z3_params_set_bool, (Z3_context c, Z3_params p, Z3_symbol k, bool v), (c, p, k, v)) \
	V(Z3_params_set_uint, (Z3_context c, Z3_params p, Z3_symbol k, unsigned v), (c, p, k, v)) \
	V(Z3_params_set_double, (Z3_context c, Z3_params p, Z3_symbol k, double v), (c, p, k, v)) \
	V(Z3_params_set_symbol, (Z3_context c, Z3_params p, Z3_symbol k, Z3_symbol v), (c, p, k, v)) \
	/* sorts */ \
	F(Z3_sort, Z3_mk_bool_sort, (Z3_context c), (c)) \
	F(Z3_sort, Z3_mk_int_sort, (Z3_context c), (c)) \
	F(Z3_sort, Z3_mk_real_sort, (Z3_context c), (c)) \
	F(Z3_sort, Z3_mk_bv_sort, (Z3_context c, unsigned bits), (c, bits)) \
	F(Z3_sort, Z3_mk_fpa_sort, (Z3_context c, unsigned ebits, unsigned sbits), (c, ebits, sbits)) \
	F(Z3_sort, Z3_mk_array_sort, (Z3_context c, Z3_sort domain, Z3_sort range), (c, domain, range)) \
	F(Z3_ast, Z3_sort_to_ast, (Z3_context c, Z3_sort s), (c, s)) \
	F(Z3_string, Z3_sort_to_string, (Z3_context c, Z3_sort s), (c, s)) \
	F(Z3_sort_kind, Z3_get_sort_kind, (Z3_context c, Z3_sort s), (c, s)) \
	F(unsigned, Z3_get_bv_sort_size, (Z3_context c, Z3_sort s), (c, s)) \
	F(Z3_sort, Z3_get_sort, (Z3_context c, Z3_ast a), (c, a)) \
	/* terms */ \
	F(Z3_string, Z3_ast_to_string, (Z3_context c, Z3_ast a), (c, a)) \
	F(unsigned, Z3_get_ast_id, (Z3_context c, Z3_ast a), (c, a)) \
	F(Z3_ast, Z3_simplify, (Z3_context c, Z3_ast a), (c, a)) \
	F(Z3_ast, Z3_mk_const, (Z3_context c, Z3_symbol name, Z3_sort s), (c, name, s)) \
	F(Z3_ast, Z3_mk_fresh_const, (Z3_context c, Z3_string prefix, Z3_sort s), (c, prefix, s)) \
	F(Z3_ast, Z3_mk_numeral, (Z3_context c, Z3_string text, Z3_sort s), (c, text, s)) \
	F(Z3_ast, Z3_mk_int64, (Z3_context c, int64_t v, Z3_sort s), (c, v, s)) \
	F(Z3_ast, Z3_mk_unsigned_int64, (Z3_context c, uint64_t v, Z3_sort s), (c, v, s)) \
	F(bool, Z3_is_numeral_ast, (Z3_context c, Z3_ast a), (c, a)) \
	F(Z3_string, Z3_get_numeral_string, (Z3_context c, Z3_ast a), (c, a)) \
	F(Z3_lbool, Z3_get_bool_value, (Z3_context c, Z3_ast a), (c, a)) \
	F(Z3_ast, Z3_mk_true, (Z3_context c), (c)) \
	F(Z3_ast, Z3_mk_false, (Z3_context c), (c)) \
	F(Z3_ast, Z3_mk_eq, (Z3_context c, Z3_ast a, Z3_ast b), (c, a, b)) \
	F(Z3_ast, Z3_mk_not, (Z3_context c, Z3_ast a), (c, a)) \
	F(Z3_ast, Z3_mk_implies, (Z3_context c, Z3_ast a, Z3_ast b), (c, a, b)) \
	F(Z3_ast, Z3_mk_iff, (Z3_context c, Z3_ast a, Z3_ast b), (c, a, b)) \
	F(Z3_ast, Z3_mk_xor, (Z3_context c, Z3_ast a, Z3_ast b), (c, a, b)) \
	F(Z3_ast, Z3_mk_ite, (Z3_context c, Z3_ast cond, Z3_ast then, Z3_ast els), (c, cond, then, els)) \
	F(Z3_ast, Z3_mk_and, (Z3_context c, unsigned n, Z3_ast const args[]), (c, n, args)) \
	F(Z3_ast, Z3_mk_or, (Z3_context c, unsigned n, Z3_ast const args[]), (c, n, args)) \
	F(Z3_ast, Z3_mk_distinct, (Z3_context c, unsigned n, Z3_ast const args[]), (c, n, args)) \
	F(Z3_ast, Z3_mk_atmost, (Z3_context c, unsigned n, Z3_ast const args[], unsigned k), (c, n, args, k)) \
	F(Z3_ast, Z3_mk_atleast, (Z3_context c, unsigned n, Z3_ast const args[], unsigned k), (c, n, args, k)) \
	/* integer and real arithmetic */ \
	F(Z3_ast, Z3_mk_add, (Z3_context c, unsigned n, Z3_ast const args[]), (c, n, args)) \
	F(Z3_ast, Z3_mk_sub, (Z3_context c, unsigned n, Z3_ast const args[]), (c, n, args)) \
	F(Z3_ast, Z3_mk_mul, (Z3_context c, unsigned n, Z3_ast const args[]), (c, n, args)) \
	F(Z3_ast, Z3_mk_unary_minus, (Z3_context c, Z3_ast a), (c, a)) \
	F(Z3_ast, Z3_mk_div, (Z3_context c, Z3_ast a, Z3_ast b), (c, a, b)) \
	F(Z3_ast, Z3_mk_mod, (Z3_context c, Z3_ast a, Z3_ast b), (c, a, b)) \
	F(Z3_ast, Z3_mk_lt, (Z3_context c, Z3_ast a, Z3_ast b), (c, a, b)) \
	F(Z3_ast, Z3_mk_le, (Z3_context c, Z3_ast a, Z3_ast b), (c, a, b)) \
	F(Z3_ast, Z3_mk_int2real, (Z3_context c, Z3_ast a), (c, a)) \
	/* bit-vectors */ \
	F(Z3_ast, Z3_mk_bvadd, (Z3_context c, Z3_ast a, Z3_ast b), (c, a, b)) \
	F(Z3_ast, Z3_mk_bvsub, (Z3_context c, Z3_ast a, Z3_ast b), (c, a, b)) \
	F(Z3_ast, Z3_mk_bvmul, (Z3_context c, Z3_ast a, Z3_ast b), (c, a, b)) \
	F(Z3_ast, Z3_mk_bvneg, (Z3_context c, Z3_ast a), (c, a)) \
	F(Z3_ast, Z3_mk_bvnot, (Z3_context c, Z3_ast a), (c, a)) \
	F(Z3_ast, Z3_mk_bvand, (Z3_context c, Z3_ast a, Z3_ast b), (c, a, b)) \
	F(Z3_ast, Z3_mk_bvor, (Z3_context c, Z3_ast a, Z3_ast b), (c, a, b)) \
	F(Z3_ast, Z3_mk_bvxor, (Z3_context c, Z3_ast a, Z3_ast b), (c, a, b)) \
	F(Z3_ast, Z3_mk_bvsdiv, (Z3_context c, Z3_ast a, Z3_ast b), (c, a, b)) \
	F(Z3_ast, Z3_mk_bvsrem, (Z3_context c, Z3_ast a, Z3_ast b), (c, a, b)) \
	F(Z3_ast, Z3_mk_bvsmod, (Z3_context c, Z3_ast a, Z3_ast b), (c, a, b)) \
	F(Z3_ast, Z3_mk_bvudiv, (Z3_context c, Z3_ast a, Z3_ast b), (c, a, b)) \
	F(Z3_ast, Z3_mk_bvurem, (Z3_context c, Z3_ast a, Z3_ast b), (c, a, b)) \
	F(Z3_ast, Z3_mk_bvshl, (Z3_context c, Z3_ast a, Z3_ast b), (c, a, b)) \
	F(Z3_ast, Z3_mk_bvlshr, (Z3_context c, Z3_ast a, Z3_ast b), (c, a, b)) \
	F(Z3_ast, Z3_mk_bvashr, (Z3_context c, Z3_ast a, Z3_ast b), (c, a, b)) \
	F(Z3_ast, Z3_mk_bvslt, (Z3_context c, Z3_ast a, Z3_ast b), (c, a, b)) \
	F(Z3_ast, Z3_mk_bvsle, (Z3_context c, Z3_ast a, Z3_ast b), (c, a, b)) \
	F(Z3_ast, Z3_mk_bvult, (Z3_context c, Z3_ast a, Z3_ast b), (c, a, b)) \
	F(Z3_ast, Z3_mk_bvule, (Z3_context c, Z3_ast a, Z3_ast b), (c, a, b)) \
	F(Z3_ast, Z3_mk_concat, (Z3_context c, Z3_ast hi, Z3_ast lo), (c, hi, lo)) \
	F(Z3_ast, Z3_mk_extract, (Z3_context c, unsigned hi, unsigned lo, Z3_ast a), (c, hi, lo, a)) \
	F(Z3_ast, Z3_mk_zero_ext, (Z3_context c, unsigned n, Z3_ast a), (c, n, a)) \
	F(Z3_ast, Z3_mk_sign_ext, (Z3_context c, unsigned n, Z3_ast a), (c, n, a)) \
	/* arrays */ \
	F(Z3_ast, Z3_mk_const_array, (Z3_context c, Z3_sort domain, Z3_ast v), (c, domain, v)) \
	F(Z3_ast, Z3_mk_select, (Z3_context c, Z3_ast a, Z3_ast i), (c, a, i)) \
	F(Z3_ast, Z3_mk_store, (Z3_context c, Z3_ast a, Z3_ast i, Z3_ast v), (c, a, i, v)) \
	/* integers <-> bit-vectors */ \
	F(Z3_ast, Z3_mk_int2bv, (Z3_context c, unsigned n, Z3_ast t1), (c, n, t1)) \
	F(Z3_ast, Z3_mk_bv2int, (Z3_context c, Z3_ast t1, bool is_signed), (c, t1, is_signed)) \
	/* sequences */ \
	F(Z3_sort, Z3_mk_seq_sort, (Z3_context c, Z3_sort s), (c, s)) \
	F(Z3_ast, Z3_mk_seq_empty, (Z3_context c, Z3_sort seq), (c, seq)) \
	F(Z3_ast, Z3_mk_seq_unit, (Z3_context c, Z3_ast a), (c, a)) \
	F(Z3_ast, Z3_mk_seq_concat, (Z3_context c, unsigned n, Z3_ast const args[]), (c, n, args)) \
	F(Z3_ast, Z3_mk_seq_prefix, (Z3_context c, Z3_ast prefix, Z3_ast s), (c, prefix, s)) \
	F(Z3_ast, Z3_mk_seq_suffix, (Z3_context c, Z3_ast suffix, Z3_ast s), (c, suffix, s)) \
	F(Z3_ast, Z3_mk_seq_contains, (Z3_context c, Z3_ast container, Z3_ast containee), (c, container, containee)) \
	F(Z3_ast, Z3_mk_seq_extract, (Z3_context c, Z3_ast s, Z3_ast offset, Z3_ast length), (c, s, offset, length)) \
	F(Z3_ast, Z3_mk_seq_replace, (Z3_context c, Z3_ast s, Z3_ast src, Z3_ast dst), (c, s, src, dst)) \
	F(Z3_ast, Z3_mk_seq_at, (Z3_context c, Z3_ast s, Z3_ast index), (c, s, index)) \
	F(Z3_ast, Z3_mk_seq_nth, (Z3_context c, Z3_ast s, Z3_ast index), (c, s, index)) \
	F(Z3_ast, Z3_mk_seq_length, (Z3_context c, Z3_ast s), (c, s)) \
	F(Z3_ast, Z3_mk_seq_index, (Z3_context c, Z3_ast s, Z3_ast substr, Z3_ast offset), (c, s, substr, offset)) \
	/* IEEE floats */ \
	F(Z3_ast, Z3_mk_fpa_numeral_double, (Z3_context c, double v, Z3_sort s), (c, v, s)) \
	F(Z3_ast, Z3_mk_fpa_numeral_float, (Z3_context c, float v, Z3_sort s), (c, v, s)) \
	F(Z3_ast, Z3_mk_fpa_rne, (Z3_context c), (c)) \
	F(Z3_ast, Z3_mk_fpa_rtz, (Z3_context c), (c)) \
	F(Z3_ast, Z3_mk_fpa_add, (Z3_context c, Z3_ast rm, Z3_ast a, Z3_ast b), (c, rm, a, b)) \
	F(Z3_ast, Z3_mk_fpa_sub, (Z3_context c, Z3_ast rm, Z3_ast a, Z3_ast b), (c, rm, a, b)) \
	F(Z3_ast, Z3_mk_fpa_mul, (Z3_context c, Z3_ast rm, Z3_ast a, Z3_ast b), (c, rm, a, b)) \
	F(Z3_ast, Z3_mk_fpa_div, (Z3_context c, Z3_ast rm, Z3_ast a, Z3_ast b), (c, rm, a, b)) \
	F(Z3_ast, Z3_mk_fpa_neg, (Z3_context c, Z3_ast a), (c, a)) \
	F(Z3_ast, Z3_mk_fpa_abs, (Z3_context c, Z3_ast a), (c, a)) \
	F(Z3_ast, Z3_mk_fpa_eq, (Z3_context c, Z3_ast a, Z3_ast b), (c, a, b)) \
	F(Z3_ast, Z3_mk_fpa_lt, (Z3_context c, Z3_ast a, Z3_ast b), (c, a, b)) \
	F(Z3_ast, Z3_mk_fpa_leq, (Z3_context c, Z3_ast a, Z3_ast b), (c, a, b)) \
	F(Z3_ast, Z3_mk_fpa_is_nan, (Z3_context c, Z3_ast a), (c, a)) \
	F(Z3_ast, Z3_mk_fpa_is_infinite, (Z3_context c, Z3_ast a), (c, a)) \
	F(Z3_ast, Z3_mk_fpa_to_ieee_bv, (Z3_context c, Z3_ast a), (c, a)) \
	F(Z3_ast, Z3_mk_fpa_to_fp_float, (Z3_context c, Z3_ast rm, Z3_ast a, Z3_sort s), (c, rm, a, s)) \
	F(Z3_ast, Z3_mk_fpa_to_fp_signed, (Z3_context c, Z3_ast rm, Z3_ast a, Z3_sort s), (c, rm, a, s)) \
	F(Z3_ast, Z3_mk_fpa_to_fp_unsigned, (Z3_context c, Z3_ast rm, Z3_ast a, Z3_sort s), (c, rm, a, s)) \
	F(Z3_ast, Z3_mk_fpa_to_sbv, (Z3_context c, Z3_ast rm, Z3_ast a, unsigned bits), (c, rm, a, bits)) \
	F(Z3_ast, Z3_mk_fpa_to_ubv, (Z3_context c, Z3_ast rm, Z3_ast a, unsigned bits), (c, rm, a, bits)) \
	/* solvers */ \
	F(Z3_solver, Z3_mk_solver, (Z3_context c), (c)) \
	F(Z3_solver, Z3_mk_solver_for_logic, (Z3_context c, Z3_symbol logic), (c, logic)) \
	V(Z3_solver_set_params, (Z3_context c, Z3_solver s, Z3_params p), (c, s, p)) \
	V(Z3_solver_assert, (Z3_context c, Z3_solver s, Z3_ast a), (c, s, a)) \
	V(Z3_solver_push, (Z3_context c, Z3_solver s), (c, s)) \
	V(Z3_solver_pop, (Z3_context c, Z3_solver s, unsigned n), (c, s, n)) \
	F(unsigned, Z3_solver_get_num_scopes, (Z3_context c, Z3_solver s), (c, s)) \
	F(Z3_lbool, Z3_solver_check, (Z3_context c, Z3_solver s), (c, s)) \
	F(Z3_lbool, Z3_solver_check_assumptions, (Z3_context c, Z3_solver s, unsigned n, Z3_ast const assumptions[]), (c, s, n, assumptions)) \
	F(Z3_string, Z3_solver_get_reason_unknown, (Z3_context c, Z3_solver s), (c, s)) \
	F(Z3_ast_vector, Z3_solver_get_unsat_core, (Z3_context c, Z3_solver s), (c, s)) \
	F(Z3_model, Z3_solver_get_model, (Z3_context c, Z3_solver s), (c, s)) \
	F(Z3_string, Z3_solver_to_string, (Z3_context c, Z3_solver s), (c, s)) \
	F(Z3_stats, Z3_solver_get_statistics, (Z3_context c, Z3_solver s), (c, s)) \
	/* statistics (the resource counter) */ \
	V(Z3_stats_inc_ref, (Z3_context c, Z3_stats s), (c, s)) \
	V(Z3_stats_dec_ref, (Z3_context c, Z3_stats s), (c, s)) \
	F(unsigned, Z3_stats_size, (Z3_context c, Z3_stats s), (c, s)) \
	F(Z3_string, Z3_stats_get_key, (Z3_context c, Z3_stats s, unsigned idx), (c, s, idx)) \
	F(Z3_bool, Z3_stats_is_uint, (Z3_context c, Z3_stats s, unsigned idx), (c, s, idx)) \
	F(unsigned, Z3_stats_get_uint_value, (Z3_context c, Z3_stats s, unsigned idx), (c, s, idx)) \
	F(double, Z3_stats_get_double_value, (Z3_context c, Z3_stats s, unsigned idx), (c, s, idx)) \
	F(unsigned, Z3_ast_vector_size, (Z3_context c, Z3_ast_vector v), (c, v)) \
	F(Z3_ast, Z3_ast_vector_get, (Z3_context c, Z3_ast_vector v, unsigned i), (c, v, i)) \
	/* optimization */ \
	F(Z3_optimize, Z3_mk_optimize, (Z3_context c), (c)) \
	V(Z3_optimize_set_params, (Z3_context c, Z3_optimize o, Z3_params p), (c, o, p)) \
	V(Z3_optimize_assert, (Z3_context c, Z3_optimize o, Z3_ast a), (c, o, a)) \
	F(unsigned, Z3_optimize_assert_soft, (Z3_context c, Z3_optimize o, Z3_ast a, Z3_string weight, Z3_symbol group), (c, o, a, weight, group)) \
	V(Z3_optimize_push, (Z3_context c, Z3_optimize o), (c, o)) \
	V(Z3_optimize_pop, (Z3_context c, Z3_optimize o), (c, o)) \
	F(Z3_lbool, Z3_optimize_check, (Z3_context c, Z3_optimize o, unsigned n, Z3_ast const assumptions[]), (c, o, n, assumptions)) \
	F(Z3_string, Z3_optimize_get_reason_unknown, (Z3_context c, Z3_optimize o), (c, o)) \
	F(Z3_model, Z3_optimize_get_model, (Z3_context c, Z3_optimize o), (c, o)) \
	/* models */ \
	F(Z3_string, Z3_model_to_string, (Z3_context c, Z3_model m), (c, m)) \
	F(Z3_bool, Z3_model_eval, (Z3_context c, Z3_model m, Z3_ast a, bool completion, Z3_ast *out), (c, m, a, completion, out))

#endif

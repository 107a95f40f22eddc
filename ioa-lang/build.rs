//! Generates the parser from `src/grammar.lalrpop` into `OUT_DIR`.

fn main() {
    println!("cargo:rerun-if-changed=src/grammar.lalrpop");
    lalrpop::Configuration::new()
        .use_cargo_dir_conventions()
        .process()
        .expect("the grammar must generate");
}

fn main() {
    std::process::exit(amgcomm::cli::run());
}

// cxx_prog.cc: a C++ program for the symbolizer's demangling
// (tests/unit/test_symbols.c): std::vector<int>::push_back and the
// functions it instantiates, a namespace, an overload and a template, with
// calls to libstdc++ through the PLT (operator new@plt). Built by the test
// suite with the host C++ compiler when there is one. Never run.
#include <vector>

namespace tea_test {

// Two overloads: distinct mangled names, one name demangled.
__attribute__((noinline)) long scale(long x) { return x * 3; }
__attribute__((noinline)) double scale(double x) { return x * 3.0; }

// A template instantiated for int.
template <typename T> __attribute__((noinline)) T twice(T x) { return x + x; }

} // namespace tea_test

int main()
{
    std::vector<int> v;
    for (int i = 0; i < 1000; i++)
        v.push_back(tea_test::twice(i));
    return static_cast<int>(tea_test::scale(static_cast<long>(v.size())) + tea_test::scale(1.5)) & 1;
}

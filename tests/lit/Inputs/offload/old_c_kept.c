/* K&R definitions offload leaves as written, with a warning, because the
 * parsed types are not what a build may write (tests/lit/offload/old-c.test). */
#ifndef DATA_TYPE
#define DATA_TYPE float
#endif
DATA_TYPE scalep(x, k)
DATA_TYPE x;
int k;
{
  return x * k;
}

double apply(f, x)
double (*f)();
double x;
{
  return f(x);
}

double half(double);
double half(x)
float x;
{
  return x / 2;
}

int main()
{
  return (int)scalep(1.5, 2) + log2(8);
}

log2(n)
{
  return n > 1 ? 1 + log2(n / 2) : 0;
}

#define VALUE 3.0f

export interface BenchIo {
  out(text: string): void;
}

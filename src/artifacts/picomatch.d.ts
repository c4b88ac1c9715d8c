// picomatch ships no types; this is the slice of its API the artifact layer uses.
declare module "picomatch" {
  interface PicomatchOptions {
    nocase?: boolean;
    dot?: boolean;
    basename?: boolean;
    windows?: boolean;
  }
  type Matcher = (input: string) => boolean;
  function picomatch(glob: string | string[], options?: PicomatchOptions): Matcher;
  export default picomatch;
}

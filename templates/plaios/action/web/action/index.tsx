import { CapabilityMicrofrontend, type MicrofrontendProps } from "@plaios/microfrontend";

/** The {{.Kind.ID}} page: the config form and the instance summary. */
export default function {{.Kind.Class}}Page(props: MicrofrontendProps) {
  return <CapabilityMicrofrontend {...props} />;
}

import { CapabilityMicrofrontend, type MicrofrontendProps } from "@plaios/microfrontend";

/** The weather.action page: the config form and the instance summary. */
export default function WeatherCapabilityPage(props: MicrofrontendProps) {
  return <CapabilityMicrofrontend {...props} />;
}
